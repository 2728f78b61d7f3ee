/**
 * Storage failures under the real bridge process, on real file systems (the tests run as root):
 * a read-only volume at start, a volume the kernel turns read-only under the running bridge (ext4
 * errors=remount-ro on a loop device), a full tmpfs; and a database written by an older schema.
 * Nothing acknowledged with 202 is lost, nothing is sent to GitHub twice, the file stays intact.
 */
import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Octokit } from 'octokit';
import t, { type Test } from 'tap';
import { MAIN_JS, fluxEvent, startBridge, type BridgeProcess } from '../harness/bridge-process.js';
import { queueIdle, type StateBody } from '../harness/state-body.js';
import { GITHUB_TOKEN, WEBHOOK_KEY, startWorld, type World } from '../harness/world.js';
import { OPT_IN, READY, putDeployment, putKustomization, sha } from '../e2e/scenario.js';
import { SCHEMA_MIGRATIONS, openDatabase } from '../harness/database.js';

// Each case has its own world, mounts and bridge: they run side by side.
t.jobs = 2;

const sh = (cmd: string, args: string[]) => execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();

/** A world whose teardown kills its bridges and unmounts what the test mounted before removing its directory. */
async function storageWorld(
  t: Test,
): Promise<{ world: World; mounts: string[]; started: BridgeProcess[]; start: (extra: Record<string, string>) => Promise<BridgeProcess> }> {
  const world = await startWorld();
  const mounts: string[] = [];
  const started: BridgeProcess[] = [];
  t.teardown(async () => {
    await Promise.all(started.map((b) => b.kill('SIGKILL')));
    for (const dir of mounts.reverse()) unmount(dir);
    await world.close();
  });
  return {
    world,
    mounts,
    started,
    start: async (extra) => {
      // Bare: without tap's process-info loader, which makes each start and exit several times slower.
      const b = await startBridge({ env: world.env(extra), webhookKey: WEBHOOK_KEY });
      started.push(b);
      return b;
    },
  };
}

function unmount(dir: string): void {
  try {
    sh('umount', [dir]);
  } catch {
    try {
      sh('umount', ['-l', dir]);
    } catch {
      /* not mounted */
    }
  }
}

/** A tmpfs of `size` at `dir` (a real ENOSPC when full). */
function mountTmpfs(mounts: string[], dir: string, size: string): void {
  mkdirSync(dir, { recursive: true });
  sh('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounts.push(dir);
}

/** An ext4 file system on a loop device at `dir` that the kernel makes read-only on its first error; returns the block device name. */
function mountExt4(mounts: string[], image: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(image, '');
  sh('truncate', ['-s', '32M', image]);
  sh('mkfs.ext4', ['-q', '-F', image]);
  sh('mount', ['-o', 'loop,errors=remount-ro', image, dir]);
  mounts.push(dir);
  return basename(sh('findmnt', ['-n', '-o', 'SOURCE', dir]).trim());
}

/** Writes a file until the file system is full (ENOSPC); bounded. */
function fill(dir: string): number {
  const fd = openSync(join(dir, 'filler'), 'w');
  const chunk = Buffer.alloc(64 * 1024, 7);
  let written = 0;
  try {
    for (let i = 0; i < 100_000; i++) written += writeSync(fd, chunk);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(fd);
  }
  // The last partial block too, so not even one page is left.
  const small = openSync(join(dir, 'filler-tail'), 'w');
  try {
    for (let i = 0; i < 1_000; i++) written += writeSync(small, Buffer.alloc(512, 7));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
  } finally {
    closeSync(small);
  }
  return written;
}

/** `PRAGMA integrity_check` from outside the bridge. */
function integrity(path: string): string {
  const db = new Database(path);
  try {
    return db.pragma('integrity_check', { simple: true }) as string;
  } finally {
    db.close();
  }
}

/** An opted-in Deployment `apps/<name>` of github.com/acme/<name> at commit `seed`, in a Ready Kustomization `<name>`. */
function putApp(world: World, name: string, seed: string): void {
  putDeployment(world, name, `ghcr.io/acme/${name}:1`, {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': `acme/${name}`,
    'github-deployment-bridge.io/commit': sha(seed),
  });
  putKustomization(world, name, [name], READY);
}

const event = (name: string) => fluxEvent('Kustomization', 'flux-system', name, { reason: 'ReconciliationSucceeded' });
const clientStates = (world: World, repo: string) =>
  (world.github.deployments('acme', repo)[0]?.statuses ?? []).filter((s) => s.addedBy === 'client').map((s) => s.state);
const creates = (world: World) =>
  world.github
    .writes()
    .filter((w) => w.method === 'POST' && /\/deployments$/.test(w.path))
    .map((w) => w.path);
const metric = (text: string, name: string) =>
  Number(new RegExp(`^${name.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
const storageErrors = (text: string) =>
  [...text.matchAll(/^gdb_storage_errors_total\{code="[A-Z_]+"\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0);

async function ready(bridge: BridgeProcess): Promise<void> {
  await bridge.waitFor('ready', async () => (await bridge.readyz()).status === 200, 60_000);
}

/** The bridge recorded the deployments of `names` as successful (and, by default, has nothing queued or running). */
async function recorded(bridge: BridgeProcess, names: string[], drained = true): Promise<StateBody> {
  return bridge.waitFor(
    `${names.join(', ')} recorded as success${drained ? ', queue drained' : ''}`,
    async () => {
      const s = await bridge.state();
      const done = names.every((n) => s.deployments.some((d) => d.repo === n && d.state === 'success'));
      return done && (!drained || queueIdle(s)) && s;
    },
    60_000,
  );
}

/** The source `name` failed at least once and waits in the queue for its retry (it was stored durably). */
async function failedOnce(bridge: BridgeProcess, name: string): Promise<void> {
  await bridge.waitFor(`${name} failed once`, async () => {
    const s = await bridge.state();
    return s.queue.items.some((q: { name: string; attempts: number }) => q.name === name && q.attempts >= 1);
  });
}

/** What a storage failure looks like from outside: 503 for events, not ready with the reason, /state saying why, still serving. */
async function assertRefusing(t: Test, bridge: BridgeProcess, name: string, cause: RegExp): Promise<void> {
  const refused = await bridge.post(event(name));
  t.equal(refused.status, 503, 'an event that cannot be stored durably is not acknowledged');
  t.match((refused.body as { error: string }).error, /^cannot record the event now: database \/\S+\/bridge\.db cannot be written: /);
  t.match((refused.body as { error: string }).error, cause, 'the 503 names the cause');
  const readyz = await bridge.waitFor('not ready', async () => {
    const r = await bridge.readyz();
    return r.status === 503 && r.body;
  });
  t.equal(readyz.ready, false);
  t.ok(
    readyz.reasons.some((r: string) => cause.test(r)),
    `/readyz names the cause: ${JSON.stringify(readyz.reasons)}`,
  );
  const state = await bridge.state();
  t.equal(state.storage.writable, false, '/state: not writable');
  t.match(state.storage.problem, { code: /^SQLITE_(FULL|IOERR|READONLY)/, reason: cause });
  t.equal((await bridge.get('/healthz')).status, 200, 'alive');
  // It keeps serving while the worker retries its writes every second.
  await bridge.waitFor('three failed writes', async () => storageErrors(await bridge.metrics()) >= 3);
  const metrics = await bridge.metrics();
  t.equal(metric(metrics, 'gdb_storage_writable'), 0);
  t.equal(bridge.child.exitCode, null, 'the process is still running');
}

/** Runs the bridge until it exits on its own; its exit code and stderr. */
async function startExpectingExit(env: Record<string, string>): Promise<{ code: number | null; stderr: string; ms: number }> {
  const started = Date.now();
  const child = spawn('env', ['-u', 'NODE_OPTIONS', process.execPath, MAIN_JS], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  child.stdout.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise<number | null>((r) => child.once('exit', r));
  clearTimeout(timer);
  return { code, stderr, ms: Date.now() - started };
}

t.test('read-only database directory at start: exit 1 with one line naming the file and the cause; starts once writable', async (t) => {
  const { world, mounts, start } = await storageWorld(t);
  const dir = join(world.dir, 'data');
  const path = join(dir, 'bridge.db');
  mountTmpfs(mounts, dir, '16m');
  // An existing database (as the bridge leaves it: current schema, WAL, closed) next to where a first install would put its own.
  const existingPath = join(dir, 'existing.db');
  openDatabase(existingPath).close();
  sh('mount', ['-o', 'remount,ro', dir]);

  const [fresh, existing] = await Promise.all([
    startExpectingExit(world.env({ DATABASE_PATH: path })),
    startExpectingExit(world.env({ DATABASE_PATH: existingPath })),
  ]);
  for (const [what, run, file] of [
    ['a first install', fresh, path],
    ['an existing database', existing, existingPath],
  ] as const) {
    t.equal(run.code, 1, `${what}: exits 1`);
    const lines = run.stderr.trim().split('\n');
    t.equal(lines.length, 1, `${what}: one line: ${run.stderr}`);
    t.match(
      lines[0],
      `github-deployment-bridge: failed to start: database ${file} cannot be opened for writing: ${dir} is on a read-only file system (EROFS) (`,
    );
    t.comment(`${what}, read-only: exit ${run.code} after ${run.ms} ms: ${lines[0]}`);
  }

  // Writable again: it starts on the same file, which is intact, and works.
  sh('mount', ['-o', 'remount,rw', dir]);
  t.equal(integrity(existingPath), 'ok');
  putApp(world, 'web', 'ro-start-web');
  const again = await start({ DATABASE_PATH: existingPath, GITHUB_WRITE_INTERVAL: '0' });
  await ready(again);
  t.equal((await again.post(event('web'))).status, 202);
  await recorded(again, ['web']);
  t.equal(await again.kill('SIGTERM'), 0);
  t.equal(world.github.deployments('acme', 'web').length, 1);
  t.same(clientStates(world, 'web'), ['success']);
  t.equal(integrity(existingPath), 'ok');
});

t.test(
  'the volume turns read-only under the running bridge: 503s and not ready, still serving; after the repair nothing acknowledged is lost',
  async (t) => {
    const { world, mounts, start } = await storageWorld(t);
    const dir = join(world.dir, 'data');
    const path = join(dir, 'bridge.db');
    const image = join(world.dir, 'volume.ext4');
    const device = mountExt4(mounts, image, dir);
    putApp(world, 'web', 'ro-web');
    putApp(world, 'api', 'ro-api');
    // api's event is accepted while the Kubernetes API fails for it: it waits in the queue for its retry.
    world.kube.inject({ path: /kustomizations\/api$/, status: 503, times: Infinity });
    const bridge = await start({ DATABASE_PATH: path, GITHUB_WRITE_INTERVAL: '0' });
    await ready(bridge);
    t.equal((await bridge.post(event('web'))).status, 202);
    t.equal((await bridge.post(event('api'))).status, 202, 'api acknowledged (and so stored durably)');
    await recorded(bridge, ['web'], false);
    await failedOnce(bridge, 'api');

    // What the kernel does on an ext4 error with errors=remount-ro: the whole file system becomes read-only.
    writeFileSync(`/sys/fs/ext4/${device}/trigger_fs_error`, '1');
    t.throws(() => writeFileSync(join(dir, 'probe'), 'x'), { code: 'EROFS' }, 'the volume is read-only now');
    putApp(world, 'cache', 'ro-cache');
    await assertRefusing(t, bridge, 'cache', /is on a read-only file system \(EROFS\)/);

    // The repair: stop the bridge, check the file system, mount it again, start the bridge.
    const stopped = Date.now();
    t.equal(await bridge.kill('SIGTERM'), 0, 'SIGTERM still stops it cleanly');
    t.comment(`SIGTERM on the read-only volume: exited in ${Date.now() - stopped} ms`);
    unmount(dir);
    mounts.pop();
    try {
      sh('e2fsck', ['-f', '-y', image]);
    } catch (err) {
      t.ok([1, 2].includes((err as { status: number }).status), 'e2fsck: errors corrected');
    }
    sh('mount', ['-o', 'loop,errors=remount-ro', image, dir]);
    mounts.push(dir);
    t.equal(integrity(path), 'ok', 'the database survived the read-only turn intact');

    // Only the durable queue knows about api now: the resync cannot list Flux objects.
    world.kube.clearFaults();
    world.kube.inject({ method: 'GET', path: /\/kustomizations(\?|$)/, status: 503, times: Infinity });
    const after = await start({ DATABASE_PATH: path, GITHUB_WRITE_INTERVAL: '0' });
    await ready(after);
    // Flux sends the refused event again; the acknowledged one was kept.
    t.equal((await after.post(event('cache'))).status, 202);
    await recorded(after, ['web', 'api', 'cache']);
    t.equal(await after.kill('SIGTERM'), 0);
    for (const repo of ['web', 'api', 'cache']) {
      t.equal(world.github.deployments('acme', repo).length, 1, `${repo}: one deployment`);
      t.same(clientStates(world, repo), ['success'], `${repo}: one success`);
    }
    t.equal(creates(world).length, 3, 'three creates in all');
    t.same(world.github.violations, []);
    t.equal(integrity(path), 'ok');
  },
);

t.test('the volume fills up under the running bridge: 503s and not ready, still serving; space freed, it recovers in place', async (t) => {
  const { world, mounts, start } = await storageWorld(t);
  const dir = join(world.dir, 'data');
  const path = join(dir, 'bridge.db');
  mountTmpfs(mounts, dir, '4m');
  putApp(world, 'web', 'full-web');
  putApp(world, 'api', 'full-api');
  world.kube.inject({ path: /kustomizations\/api$/, status: 503, times: Infinity });
  const bridge = await start({ DATABASE_PATH: path, GITHUB_WRITE_INTERVAL: '0' });
  await ready(bridge);
  t.equal((await bridge.post(event('web'))).status, 202);
  t.equal((await bridge.post(event('api'))).status, 202, 'api acknowledged');
  await recorded(bridge, ['web'], false);
  await failedOnce(bridge, 'api');

  const filled = fill(dir);
  t.comment(`filled the tmpfs with ${filled} bytes`);
  putApp(world, 'cache', 'full-cache');
  await assertRefusing(t, bridge, 'cache', /no space left on the file system of \S+ \(ENOSPC\) \(database or disk is full, SQLITE_FULL\)/);
  world.kube.clearFaults();

  // Space freed: ready again without a restart, new events accepted, the kept work done.
  rmSync(join(dir, 'filler'));
  rmSync(join(dir, 'filler-tail'));
  const freed = Date.now();
  await ready(bridge);
  t.comment(`ready ${Date.now() - freed} ms after the space was freed`);
  t.equal((await bridge.post(event('cache'))).status, 202, 'accepted again');
  const state = await recorded(bridge, ['web', 'api', 'cache']);
  t.equal(state.storage.writable, true);
  const metrics = await bridge.metrics();
  t.equal(metric(metrics, 'gdb_storage_writable'), 1);
  t.comment(
    `storage errors counted: ${storageErrors(metrics)}; events refused: ${metric(metrics, 'gdb_events_total{kind="Kustomization",result="store_failed"}')}`,
  );
  t.ok(
    bridge.logs.some((l) => l.msg === 'database writes work again'),
    'the recovery is logged',
  );
  t.equal(
    bridge.logs.filter((l) => String(l.msg).startsWith('database writes failing')).length,
    1,
    'the failure is logged once, not per write',
  );
  t.equal(await bridge.kill('SIGTERM'), 0);
  for (const repo of ['web', 'api', 'cache']) {
    t.equal(world.github.deployments('acme', repo).length, 1, `${repo}: one deployment`);
    t.same(clientStates(world, repo), ['success'], `${repo}: one success`);
  }
  t.equal(creates(world).length, 3);
  t.same(world.github.violations, []);
  t.equal(integrity(path), 'ok');
});

t.test('a database written by an older schema migrates on start, keeps its rows and works', async (t) => {
  const { world, start } = await storageWorld(t);
  const now = Date.now();
  /** The database an older bridge (the first `version` migrations) left: a recorded deployment and a queued source. */
  const olderDatabase = (path: string, version: number, deploymentId: number) => {
    const db = new Database(path);
    db.pragma('journal_mode = WAL');
    for (const m of SCHEMA_MIGRATIONS.slice(0, version)) db.exec(m);
    db.pragma(`user_version = ${version}`);
    db.prepare(
      `INSERT INTO deployments (owner, repo, environment, sha, deployment_name, deployment_id, state, source_kind, source_namespace,
        source_name, workload_kind, workload_namespace, workload_name, container, image, description, created_at, updated_at)
      VALUES ('acme', 'web', 'staging', ?, 'web', ?, 'success', 'Kustomization', 'flux-system', 'web', 'Deployment', 'apps', 'web', 'app',
        'ghcr.io/acme/web:1', 'Deployed', ?, ?)`,
    ).run(sha('old-web'), deploymentId, now, now);
    db.prepare(
      `INSERT INTO queue (kind, namespace, name, not_before, enqueued_at) VALUES ('Kustomization', 'flux-system', 'web', ?, ?)`,
    ).run(now, now);
    db.close();
  };
  const schema = (db: Database.Database) => db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name`).all();
  const current = openDatabase(':memory:');
  const currentSchema = schema(current);
  current.close();

  // Every older version migrates to the current schema and keeps its rows.
  for (let version = 1; version < SCHEMA_MIGRATIONS.length; version++) {
    const path = join(world.dir, `v${version}.db`);
    olderDatabase(path, version, 9000 + version);
    const db = openDatabase(path);
    t.equal(db.pragma('user_version', { simple: true }), SCHEMA_MIGRATIONS.length, `v${version} → v${SCHEMA_MIGRATIONS.length}`);
    t.same(schema(db), currentSchema, `v${version}: the same schema as a fresh database`);
    t.match(db.prepare('SELECT deployment_id, state FROM deployments').all(), [{ deployment_id: 9000 + version, state: 'success' }]);
    t.equal((db.prepare('SELECT COUNT(*) AS n FROM queue').get() as { n: number }).n, 1);
    db.close();
  }

  // The real bridge on the first schema: the deployment it recorded exists on GitHub; it is not created again.
  const gh = new Octokit({ auth: GITHUB_TOKEN, baseUrl: world.github.url, retry: { enabled: false }, throttle: { enabled: false } });
  const old = await gh.rest.repos.createDeployment({
    owner: 'acme',
    repo: 'web',
    ref: sha('old-web'),
    environment: 'staging',
    auto_merge: false,
    required_contexts: [],
    payload: { deploymentName: 'web' },
  });
  const oldId = (old.data as { id: number }).id;
  await gh.rest.repos.createDeploymentStatus({ owner: 'acme', repo: 'web', deployment_id: oldId, state: 'success' });
  const path = join(world.dir, 'data', 'bridge.db');
  mkdirSync(join(world.dir, 'data'));
  olderDatabase(path, 1, oldId);
  putApp(world, 'web', 'old-web');
  const writesBefore = world.github.writes().length;

  const bridge = await start({ DATABASE_PATH: path, GITHUB_WRITE_INTERVAL: '0' });
  await ready(bridge);
  const state = await bridge.waitFor('the queued source reconciled', async () => {
    const s = await bridge.state();
    return s.fluxObjects.some((x) => x.name === 'web' && x.lastSeen !== null) && queueIdle(s) && s;
  });
  t.match(state.deployments, [{ repo: 'web', deploymentId: oldId, state: 'success' }], 'the old row is kept');
  t.equal(world.github.writes().length, writesBefore, 'no GitHub write: the known deployment is not created again');
  const inspect = new Database(path, { readonly: true });
  t.equal(inspect.pragma('user_version', { simple: true }), SCHEMA_MIGRATIONS.length, 'schema current');
  t.same(schema(inspect), currentSchema);
  inspect.close();

  // It works: a new commit of web gets its own deployment.
  putApp(world, 'web', 'new-web');
  t.equal((await bridge.post(event('web'))).status, 202);
  await bridge.waitFor('new commit recorded', async () => {
    const s = await bridge.state();
    return s.deployments.some((d) => d.sha === sha('new-web') && d.state === 'success');
  });
  t.equal(await bridge.kill('SIGTERM'), 0);
  const all = world.github.deployments('acme', 'web');
  t.same(
    all.map((d) => d.sha),
    [sha('old-web'), sha('new-web')],
    'one deployment per commit',
  );
  t.equal(creates(world).length, 2, 'the old one (made before) and the new one');
  t.same(world.github.violations, []);
  t.equal(integrity(path), 'ok');
});
