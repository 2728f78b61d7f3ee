/**
 * Reliability: the Kubernetes API, GitHub and the registry each go down for a while, first refusing
 * connections, then accepting them and never answering. Flux events keep arriving and are accepted
 * (intake is durable); the work backs up; /readyz and /state say which dependency fails and why; after
 * the restore every workload ends in the right GitHub state, nothing lost and nothing duplicated.
 *
 * The three dependencies run in parallel, each in its own world. The Kubernetes outage lasts past the
 * silence window (the API must have answered within max(60 s, 2 x RESYNC_INTERVAL)), so /readyz says it
 * has not answered recently; no outage ever makes the bridge unready (the Service must keep routing
 * Flux's events to the durable intake), /readyz names them under `degraded`.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { fluxEvent, type BridgeProcess } from '../harness/bridge-process.js';
import { queueIdle, type StateBody } from '../harness/state-body.js';
import { startWorld, type World } from '../harness/world.js';
import { OPT_IN, READY, clientStates, pushAppImage, putDeployment, putKustomization, sha } from '../e2e/scenario.js';

/** The three scenarios run at once, each with its own bridge and simulators. */
t.jobs = 3;

const SOURCES = ['s1', 's2', 's3'] as const;
/** How long a short outage refuses connections before it starts hanging. */
const REFUSED_MS = 8_000;
/** Kubernetes: how long the API refuses connections before the events arrive (a quiet outage first). */
const KUBE_QUIET_MS = 30_000;
/** Kubernetes: refused after the events, before hanging. */
const KUBE_REFUSED_MS = 10_000;
/** Budget of the waits that span an outage, a client timeout and a backoff. */
const LONG_WAIT_MS = 120_000;

/** A TCP gate in front of a server: passes bytes through, refuses connections (port closed), or accepts and never answers. */
class Gate {
  private server: Server | null = null;
  private mode: 'pass' | 'hang' = 'pass';
  private readonly sockets = new Set<Socket>();
  port = 0;
  /** Connections accepted while hanging (never answered). */
  held = 0;

  constructor(private readonly upstreamPort: number) {}

  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async open(mode: 'pass' | 'hang'): Promise<void> {
    this.mode = mode;
    if (this.server) return;
    const server = createServer((c) => this.accept(c));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Closes the port and drops every connection: clients get ECONNREFUSED. */
  async refuse(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private accept(c: Socket): void {
    this.sockets.add(c);
    c.on('close', () => this.sockets.delete(c));
    c.on('error', () => c.destroy());
    if (this.mode === 'hang') {
      this.held++;
      c.resume(); // read and drop the request; never answer
      return;
    }
    const u = connect(this.upstreamPort, '127.0.0.1');
    this.sockets.add(u);
    u.on('close', () => {
      this.sockets.delete(u);
      c.destroy();
    });
    u.on('error', () => u.destroy());
    c.on('close', () => u.destroy());
    c.pipe(u).pipe(c);
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Bridges start one at a time: three processes loading at once on a busy 2-core machine can miss the start timeout. */
let starting: Promise<unknown> = Promise.resolve();
function startBridge(t: Test, world: World, env: Record<string, string> = {}): Promise<BridgeProcess> {
  const asked = Date.now();
  const started = starting.then(async () => {
    const from = Date.now();
    const b = await world.bridge(env);
    t.comment(`bridge started in ${Date.now() - from} ms (after ${from - asked} ms in line)`);
    return b;
  });
  starting = started.catch(() => undefined);
  return started;
}
const hasSuccess = (world: World, repo: string, commit: string) =>
  clientStates(world.github.deployments('acme', repo).find((d) => d.sha === commit)).includes('success');

/** Waits until every source's last error matches `pattern`; returns that /state. */
async function sourcesFailing(b: BridgeProcess, names: readonly string[], pattern: RegExp, timeoutMs = 60_000): Promise<StateBody> {
  return b.waitFor(
    `${names.join(', ')} failing with ${pattern}`,
    async () => {
      const s = await b.state();
      return names.every((n) => pattern.test(s.fluxObjects.find((x) => x.name === n)?.lastError ?? '')) && s;
    },
    timeoutMs,
  );
}

/** Posts a signed event per source; every one must be accepted. */
async function postEvents(t: Test, b: BridgeProcess, names: readonly string[]): Promise<void> {
  for (const n of names) {
    const res = await b.post(
      fluxEvent('Kustomization', 'flux-system', n, { reason: 'ReconciliationSucceeded', message: `Deployment/apps/${n} configured` }),
    );
    t.equal(res.status, 202, `event for ${n} accepted during the outage`);
  }
}

/** Waits until every source's v2 commit has its success and the queue is empty; returns ms since `from`. */
async function drained(b: BridgeProcess, world: World, commits: Record<string, string>, from: number): Promise<number> {
  await b.waitFor(
    'every workload at its new commit, queue empty',
    async () => {
      if (!SOURCES.every((n) => hasSuccess(world, n, commits[n]!))) return false;
      const s = await b.state();
      return queueIdle(s);
    },
    LONG_WAIT_MS,
  );
  return Date.now() - from;
}

/** The end state: per workload exactly the old deployment (success, then the bridge's inactive) and the new one (success). */
async function assertEndState(
  t: Test,
  b: BridgeProcess,
  world: World,
  v1: Record<string, string>,
  v2: Record<string, string>,
): Promise<void> {
  for (const n of SOURCES) {
    const ds = world.github.deployments('acme', n);
    t.same(
      ds.map((d) => d.sha),
      [v1[n], v2[n]],
      `${n}: two deployments, old then new, no duplicate`,
    );
    t.same(clientStates(ds[0]), ['success', 'inactive'], `${n}: the old deployment got its one success, then its one inactive`);
    t.same(clientStates(ds[1]), ['success'], `${n}: the new deployment got exactly one success`);
  }
  t.same(world.github.violations, [], 'every GitHub request matched the API description');
  const s = await b.state();
  t.same(
    s.fluxObjects.map((x) => x.lastError),
    [null, null, null],
    'no source keeps an error',
  );
  t.same(s.skipped, [], 'nothing skipped');
  t.same(s.readiness, { ready: true, reasons: [], degraded: [] }, 'ready, nothing degraded');
  t.equal((await b.readyz()).status, 200, '/readyz 200 again');
}

/** What /state says about the queue: each item's attempts and last error. */
const queueSays = (s: StateBody) =>
  JSON.stringify(s.queue.items.map((i) => ({ name: i.name, attempts: i.attempts, lastError: i.lastError })));

/** Sum of a counter's series whose labels match `labels`. */
async function counted(b: BridgeProcess, metric: string, labels: RegExp): Promise<number> {
  const text = await b.metrics();
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${metric}{`) && labels.test(l))
    .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
}

/** /readyz answered 200 (ready), with exactly one degraded dependency matching `pattern`. */
function readyButDegraded(t: Test, r: { status: number; body: StateBody['readiness'] }, pattern: RegExp, what: string): void {
  t.equal(r.status, 200, `${what}: still ready`);
  t.same(r.body.reasons, [], `${what}: no readiness problem`);
  t.equal(r.body.degraded?.length, 1, `${what}: one degraded dependency`);
  t.match(r.body.degraded?.[0], pattern, `${what}: /readyz names it and its error`);
}

/** Reconcile failures logged between two times. */
const failuresBetween = (b: BridgeProcess, from: number, to: number) =>
  b.logs.filter((l) => l.msg === 'reconcile failed; will retry' && (l.time as number) >= from && (l.time as number) <= to).length;

/** The commits of s1..s3 before (v1) and after (v2) the change that arrives during the outage. */
function commitsFor(prefix: string) {
  const v1 = Object.fromEntries(SOURCES.map((n) => [n, sha(`${prefix}-${n}-1`)]));
  const v2 = Object.fromEntries(SOURCES.map((n) => [n, sha(`${prefix}-${n}-2`)]));
  return { v1, v2 };
}
const annotated = (repo: string, commit: string) => ({
  ...OPT_IN,
  'github-deployment-bridge.io/repository': `acme/${repo}`,
  'github-deployment-bridge.io/commit': commit,
});

async function settleV1(t: Test, b: BridgeProcess, world: World, v1: Record<string, string>): Promise<void> {
  await b.waitFor(
    'v1 live everywhere',
    async () => {
      if (!SOURCES.every((n) => hasSuccess(world, n, v1[n]!))) return false;
      const s = await b.state();
      return queueIdle(s);
    },
    LONG_WAIT_MS,
  );
  t.equal((await b.readyz()).status, 200, 'ready before the outage');
}

t.test('Kubernetes API down: refused, then hanging, past the readiness window', { buffered: true }, async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const { v1, v2 } = commitsFor('kube');
  for (const n of SOURCES) {
    putDeployment(world, n, `ghcr.io/acme/${n}:1`, annotated(n, v1[n]!));
    putKustomization(world, n, [n], READY);
  }
  // RESYNC_INTERVAL 30s: the readiness window is its floor, 60 s.
  const bridge = await startBridge(t, world, { RESYNC_INTERVAL: '30s' });
  await settleV1(t, bridge, world, v1);

  const down = Date.now();
  await world.kube.stop();
  for (const n of SOURCES) {
    putDeployment(world, n, `ghcr.io/acme/${n}:2`, annotated(n, v2[n]!));
    putKustomization(world, n, [n], READY, 2);
  }
  await pause(KUBE_QUIET_MS);
  await postEvents(t, bridge, ['s1', 's2']);
  const refused = await sourcesFailing(bridge, ['s1', 's2'], /Kubernetes API: .*ECONNREFUSED/);
  t.comment(`kube refused, queue: ${queueSays(refused)}`);
  const readyRefused = await bridge.readyz();
  t.comment(`kube refused /readyz: ${readyRefused.status} ${JSON.stringify(readyRefused.body)}`);
  readyButDegraded(
    t,
    readyRefused,
    /^Kubernetes API failing: (GET|LIST) kustomizations .* failed: .*connect ECONNREFUSED/,
    'Kubernetes refusing, within the readiness window',
  );
  await pause(KUBE_REFUSED_MS);

  // Hanging: the port answers TCP, never HTTP.
  world.kube.inject({ hang: true, times: Infinity });
  await world.kube.start();
  await postEvents(t, bridge, ['s3', 's1']);
  const silent = await bridge.waitFor(
    '/readyz naming the silent Kubernetes API',
    async () => {
      const r = await bridge.readyz();
      return r.body.degraded?.some((d) => d.startsWith('Kubernetes API has not answered recently')) === true && r;
    },
    LONG_WAIT_MS,
  );
  t.comment(`kube hanging /readyz: ${silent.status} ${JSON.stringify(silent.body)}`);
  t.equal(silent.status, 200, 'still ready: events keep being queued, nothing is lost by taking them');
  t.same(silent.body.reasons, [], 'no readiness problem');
  t.equal(silent.body.degraded?.length, 1, 'said once');
  t.match(
    silent.body.degraded?.[0],
    /^Kubernetes API has not answered recently: Kubernetes API: .*(timed out after 10000 ms|ECONNREFUSED)/,
    '/readyz names the Kubernetes API and its last error',
  );
  const hung = await sourcesFailing(bridge, ['s3'], /Kubernetes API: .*timed out after 10000 ms/, LONG_WAIT_MS);
  t.comment(`kube hanging, queue: ${queueSays(hung)}`);
  t.ok(
    world.kube.requests.some((r) => r.fault === 'hang'),
    'requests reached the hanging API',
  );

  const restored = Date.now();
  world.kube.clearFaults();
  const drainMs = await drained(bridge, world, v2, restored);
  t.comment(
    `FIGURES kube: outage ${restored - down} ms; restore→drained ${drainMs} ms; events during outage 4 (all 202); reconcile failures during outage ${failuresBetween(bridge, down, restored)}; requests held by the hanging API ${world.kube.requests.filter((r) => r.fault === 'hang').length}`,
  );
  await assertEndState(t, bridge, world, v1, v2);
});

t.test('GitHub down: refused, then hanging', { buffered: true }, async (t) => {
  const world = await startWorld();
  t.teardown(() => world.close());
  const gate = new Gate(Number(new URL(world.github.url).port));
  await gate.open('pass');
  t.teardown(() => gate.refuse());
  const { v1, v2 } = commitsFor('github');
  for (const n of SOURCES) {
    putDeployment(world, n, `ghcr.io/acme/${n}:1`, annotated(n, v1[n]!));
    putKustomization(world, n, [n], READY);
  }
  const bridge = await startBridge(t, world, { GITHUB_API_URL: `http://${gate.host}` });
  await settleV1(t, bridge, world, v1);

  await gatedOutage(t, {
    name: 'github',
    bridge,
    world,
    gate,
    v1,
    v2,
    applyV2: () => {
      for (const n of SOURCES) putDeployment(world, n, `ghcr.io/acme/${n}:2`, annotated(n, v2[n]!));
    },
    refused: /^GitHub failing since \S+: GET \/repos\/\{owner\}\/\{repo\}\/deployments: network error: connect ECONNREFUSED/,
    hungError: /timed out/,
    hung: /^GitHub failing since \S+: GET \/repos\/\{owner\}\/\{repo\}\/deployments: timed out$/,
    unanswered: ['gdb_forge_requests_total', /forge="github".*status="(network|timeout)"/],
  });
});

t.test('registry down: refused, then hanging', { buffered: true }, async (t) => {
  const world = await startWorld({ registry: true });
  t.teardown(() => world.close());
  const registry = world.registry!;
  const gate = new Gate(Number(new URL(registry.url).port));
  await gate.open('pass');
  t.teardown(() => gate.refuse());
  const viaGate = (image: string) => image.replace(registry.host, gate.host);
  const { v1, v2 } = commitsFor('registry');
  for (const n of SOURCES) {
    putDeployment(world, n, viaGate(await pushAppImage(world, n, '1.0.0', v1[n]!)));
    putKustomization(world, n, [n], READY);
  }
  const images2 = Object.fromEntries(
    await Promise.all(SOURCES.map(async (n) => [n, viaGate(await pushAppImage(world, n, '2.0.0', v2[n]!))] as const)),
  );
  const bridge = await startBridge(t, world, { REGISTRY_INSECURE_HOSTS: gate.host });
  await settleV1(t, bridge, world, v1);

  await gatedOutage(t, {
    name: 'registry',
    bridge,
    world,
    gate,
    v1,
    v2,
    applyV2: () => {
      for (const n of SOURCES) putDeployment(world, n, images2[n]!);
    },
    refused: new RegExp(
      `^registry failing for 2 workload container\\(s\\): ${gate.host.replace(/\./g, '\\.')} is unreachable \\(ECONNREFUSED\\)$`,
    ),
    hungError: /did not answer within 10000 ms/,
    hung: /^registry failing for [1-3] workload container\(s\): .*did not answer within 10000 ms/,
    unanswered: ['gdb_registry_http_requests_total', /status="0"/],
  });
});

/**
 * A dependency behind `gate` goes down while version 2 is applied: refused, then hanging, with signed
 * events during both; then it comes back and everything must drain to version 2.
 */
async function gatedOutage(
  t: Test,
  o: {
    name: string;
    bridge: BridgeProcess;
    world: World;
    gate: Gate;
    v1: Record<string, string>;
    v2: Record<string, string>;
    applyV2: () => void;
    refused: RegExp;
    hungError: RegExp;
    hung: RegExp;
    unanswered: [string, RegExp];
  },
): Promise<void> {
  const { name, bridge, world, gate, v1, v2 } = o;
  const down = Date.now();
  await gate.refuse();
  o.applyV2();
  for (const n of SOURCES) putKustomization(world, n, [n], READY, 2);
  await postEvents(t, bridge, ['s1', 's2']);
  const refused = await sourcesFailing(bridge, ['s1', 's2'], /ECONNREFUSED/);
  t.comment(`${name} refused, queue: ${queueSays(refused)}`);
  const readyRefused = await bridge.readyz();
  t.comment(`${name} refused /readyz: ${readyRefused.status} ${JSON.stringify(readyRefused.body)}`);
  readyButDegraded(t, readyRefused, o.refused, `${name} refusing`);
  await pause(Math.max(0, down + REFUSED_MS - Date.now()));

  await gate.open('hang');
  await postEvents(t, bridge, ['s3', 's1']);
  const hung = await sourcesFailing(bridge, ['s3'], o.hungError, LONG_WAIT_MS);
  t.comment(`${name} hanging, queue: ${queueSays(hung)}`);
  const readyHung = await bridge.readyz();
  readyButDegraded(t, readyHung, o.hung, `${name} hanging`);
  t.ok(gate.held > 0, 'requests reached the hanging port');

  const restored = Date.now();
  await gate.open('pass');
  const unanswered = await counted(bridge, ...o.unanswered);
  const drainMs = await drained(bridge, world, v2, restored);
  t.comment(`${name} hanging /readyz: ${readyHung.status} ${JSON.stringify(readyHung.body)}`);
  t.comment(
    `FIGURES ${name}: outage ${restored - down} ms; restore→drained ${drainMs} ms; events during outage 4 (all 202); reconcile failures during outage ${failuresBetween(bridge, down, restored)}; requests unanswered (refused + timed out) ${unanswered}; connections held by the hanging port ${gate.held}`,
  );
  await assertEndState(t, bridge, world, v1, v2);
}
