/** The commit-time reader: once per counted commit, never for previews, missing kept, failures with backoff, pauses not failures. */
import t, { type Test } from 'tap';
import pino from 'pino';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { CommitTimeStore } from '../../../src/features/dora/commit-time-store.js';
import { TransientEnvironmentStore } from '../../../src/store/transient-store.js';
import { CommitTimes, FORBIDDEN_HOLD_MS, retryDelayMs } from '../../../src/features/dora/commit-times.js';
import { GitHubCallError } from '../../../src/forges/github/call-error.js';
import { ForgePaused } from '../../../src/forges/forge-health.js';
import { ForgeError } from '../../../src/common/errors.js';
import { countsForDora } from '../../../src/features/dora/dora.js';
import type { CommitTimesPort } from '../../../src/forges/commit-times-port.js';
import { record, shopDeployment } from '../../harness/recorded-deployments.js';
import { tempDatabase } from '../../harness/temp-database.js';
import { keepOutcomes } from '../../../src/features/dora/dora-store.js';

const NOW = Date.UTC(2026, 11, 1);

/** A forge whose answers the test sets per commit letter; every read is kept. */
function forge() {
  const reads: string[] = [];
  const answers = new Map<string, () => number | null>();
  const port: CommitTimesPort = {
    committedAt(owner, repo, sha) {
      reads.push(`${owner}/${repo}@${sha[0]}`);
      const answer = answers.get(sha[0]!) ?? (() => NOW - 3_600_000);
      return Promise.resolve().then(answer);
    },
  };
  return { port, reads, answers };
}

function world(t: Test, include?: (e: string) => boolean) {
  const db = tempDatabase(t, 'gdb-commit-reader-').db();
  let clock = NOW;
  const gh = forge();
  const warnings: unknown[] = [];
  const log = pino({ level: 'silent' });
  log.warn = (o: unknown) => void warnings.push(o);
  const told: string[] = [];
  const store = new CommitTimeStore(db);
  const reader = new CommitTimes({
    store,
    forges: new Map([['github', gh.port]]),
    counts: (env) => countsForDora(env, include),
    onRead: (f, r) => told.push(`${f} ${r}`),
    log,
    now: () => clock,
  });
  const deployments = new DeploymentStore(keepOutcomes(db));
  const succeed = (c: string, environment = 'production', forgeName = 'github') =>
    record(deployments, shopDeployment(c, { environment, forge: forgeName }), clock - 60_000, ['success', clock]);
  return { db, gh, reader, store, succeed, warnings, told, advance: (ms: number) => (clock += ms) };
}

t.test('each commit that succeeded in production is read once; staging, previews and other forges are not', async (t) => {
  const w = world(t);
  new TransientEnvironmentStore(w.db).mark({ forge: 'github', owner: 'acme', repo: 'shop', environment: 'pr-3' }, NOW);
  w.succeed('a');
  w.succeed('a', 'production/eu-1');
  w.succeed('b', 'staging');
  w.succeed('c', 'pr-3');
  w.succeed('d', 'production', 'forgejo');
  t.equal(await w.reader.runOnce(), 1);
  t.same(w.gh.reads, ['acme/shop@a'], 'one read for a commit in two production environments');
  t.same(w.told, ['github known']);
  t.equal(await w.reader.runOnce(), 0, 'nothing new: no read');
  w.advance(1_000);
  w.succeed('e');
  t.equal(await w.reader.runOnce(), 1, 'a new success: one read');
  t.same(w.gh.reads, ['acme/shop@a', 'acme/shop@e']);
  t.same(w.store.counts(), { known: 2, missing: 0, failed: 0 });
});

t.test('DORA_ENVIRONMENTS adds the commits of its environments', async (t) => {
  const w = world(t, (e) => e === 'staging');
  w.succeed('b', 'staging');
  w.succeed('c', 'qa');
  await w.reader.runOnce();
  t.same(w.gh.reads, ['acme/shop@b']);
});

t.test('a commit the forge does not hold is kept as missing and never asked again', async (t) => {
  const w = world(t);
  w.gh.answers.set('a', () => null);
  w.succeed('a');
  await w.reader.runOnce();
  w.succeed('a', 'production/eu-1');
  await w.reader.runOnce();
  t.same(w.gh.reads, ['acme/shop@a'], 'asked once, even when deployed again');
  t.same(w.store.counts(), { known: 0, missing: 1, failed: 0 });
  t.same(w.told, ['github missing']);
});

t.test('an outage is a failed read, logged once, asked again with backoff until it answers', async (t) => {
  const w = world(t);
  let down = true;
  w.gh.answers.set('a', () => {
    if (down) throw new ForgeError('read the commit acme/shop@aaaa: 503 Service Unavailable', 503);
    return NOW - 7_200_000;
  });
  w.succeed('a');
  await w.reader.runOnce();
  t.same(w.store.counts(), { known: 0, missing: 0, failed: 1 });
  t.equal(w.reader.lastError?.forge, 'github');
  t.match(w.reader.lastError?.reason, /503/);
  t.equal(await w.reader.runOnce(), 0, 'not asked again before its retry');
  w.advance(retryDelayMs(1));
  await w.reader.runOnce();
  t.equal(w.gh.reads.length, 2, 'asked again when due');
  t.equal(w.warnings.length, 1, 'the reason is logged once per commit, not per attempt');
  down = false;
  w.advance(retryDelayMs(2));
  await w.reader.runOnce();
  t.same(w.store.counts(), { known: 1, missing: 0, failed: 0 });
  t.same(w.told, ['github failed', 'github failed', 'github known']);
});

t.test('a paused forge is no failure: the next look asks again', async (t) => {
  const w = world(t);
  let paused = true;
  w.gh.answers.set('a', () => {
    if (paused)
      throw new ForgePaused({ forge: 'GitHub', kind: 'credentials', since: NOW, until: NOW + 60_000, reason: '401 Bad credentials' });
    return NOW;
  });
  w.succeed('a');
  await w.reader.runOnce();
  t.same(w.store.counts(), { known: 0, missing: 0, failed: 0 }, 'nothing recorded');
  t.same(w.told, []);
  paused = false;
  await w.reader.runOnce();
  t.same(w.store.counts(), { known: 1, missing: 0, failed: 0 }, 'read on the next look although no outcome was added');
});

t.test('a credential that may not read commits holds every commit of its forge, logged once, asked again later', async (t) => {
  const w = world(t);
  let forbidden = true;
  for (const c of ['a', 'b', 'c'])
    w.gh.answers.set(c, () => {
      if (forbidden) throw new GitHubCallError('Resource not accessible by personal access token', 403, undefined, 'getCommit');
      return NOW;
    });
  for (const c of ['a', 'b', 'c']) w.succeed(c);
  await w.reader.runOnce();
  await w.reader.runOnce();
  t.equal(w.gh.reads.length, 1, 'one read, then the forge is held');
  t.equal(w.warnings.length, 1, 'logged once');
  t.same(w.store.counts(), { known: 0, missing: 0, failed: 0 }, 'no commit is marked: it was the permission');
  t.match(w.reader.lastError?.reason, /not accessible/);
  forbidden = false;
  w.advance(FORBIDDEN_HOLD_MS);
  await w.reader.runOnce();
  t.same(w.store.counts(), { known: 3, missing: 0, failed: 0 }, 'all read once the hold is over');
});

t.test('many new commits are read a few per look, all in the end', async (t) => {
  const w = world(t);
  const letters = 'abcdefghijklmnopqrstuvwxy'.split('');
  for (const c of letters) w.succeed(c);
  const first = await w.reader.runOnce();
  t.ok(first < letters.length, `a look reads at most a few (${first})`);
  let looks = 1;
  while (w.gh.reads.length < letters.length && looks < 10) {
    await w.reader.runOnce();
    looks += 1;
  }
  t.equal(w.gh.reads.length, letters.length, `all read, each once, in ${looks} looks`);
  t.equal(new Set(w.gh.reads).size, letters.length);
});

t.test('a failing database is logged and the look returns', async (t) => {
  const w = world(t);
  w.succeed('a');
  w.db.close();
  t.equal(await w.reader.runOnce(), 0);
  t.equal(w.warnings.length, 1);
});

t.test('a nudge looks at once; after stop nothing is read', async (t) => {
  const w = world(t);
  w.succeed('a');
  w.reader.nudge();
  await w.reader.runOnce();
  t.same(w.gh.reads, ['acme/shop@a'], 'read on the nudge');
  w.reader.stop();
  w.succeed('b');
  w.reader.nudge();
  t.equal(await w.reader.runOnce(), 0);
  t.same(w.gh.reads, ['acme/shop@a'], 'nothing after stop');
});

t.test('retry delays double from five minutes to at most a day', (t) => {
  t.same([1, 2, 3, 20].map(retryDelayMs), [300_000, 600_000, 1_200_000, 86_400_000]);
  t.end();
});
