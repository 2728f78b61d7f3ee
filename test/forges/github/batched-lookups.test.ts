/**
 * The batched find before creates against the GitHub simulator (its GraphQL checked against GitHub's schema):
 * many new targets at once cost one REST find and one GraphQL query, a lost database adopts without a read per
 * deployment, a create whose answer was lost is found by the next process's batch (never a duplicate), a full
 * page and a spent GraphQL budget go to the REST find without pausing anything.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createGitHubSide } from '../../../src/forges/github/github-client.js';
import { createMetrics } from '../../../src/common/metrics.js';
import { InstallationStore } from '../../../src/forges/github/installation-store.js';
import { GitHubPublisher } from '../../../src/forges/github/github-publisher.js';
import { DeploymentLookups, LookupQueued } from '../../../src/forges/github/deployment-lookups.js';
import { type Db } from '../../../src/store/database.js';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { startGitHubSimulator, type GitHubSimulator, type GitHubSimulatorOptions } from '../../harness/github-sim.js';
import { OWNER, TOKEN, sha, target } from './rig.js';
import { openDatabase } from '../../harness/database.js';

const WINDOW_MS = 30;
const log = pino({ level: 'silent' });

/** A bridge process over `db`: the token side, the look-ups and the publisher (no guard: errors as they are). */
function bridge(t: Test, sim: GitHubSimulator, db: Db) {
  const side = createGitHubSide({
    auth: { kind: 'token', token: TOKEN },
    baseUrl: sim.url,
    userAgent: 'gdb-test',
    metrics: createMetrics(),
    log,
    now: Date.now,
    installations: new InstallationStore(db),
    spaceWrites: false,
  });
  const lookups = new DeploymentLookups({ query: side.port.queryDeployments!.bind(side.port), log, now: Date.now, windowMs: WINDOW_MS });
  t.teardown(() => lookups.stop());
  const publisher = new GitHubPublisher({ github: side.port, deployments: new DeploymentStore(db), log, now: Date.now, lookups });
  /** Publishes every target to `success`, each coming back when its look-up's batch is answered (as the worker does). */
  /** Every publish to its end (a failed one too, as a process's other work goes on), then the first failure. */
  const publishAll = async (targets: ReturnType<typeof target>[]) => {
    const all = await Promise.allSettled(
      targets.map(async (x) => {
        // Until answered (the simulator's first query builds GitHub's schema: a second or more on a loaded machine).
        for (const end = Date.now() + 60_000; Date.now() < end;) {
          try {
            return await publisher.publish(x.target, x.origin, 'success', 'ReconciliationSucceeded');
          } catch (err) {
            if (!(err instanceof LookupQueued)) throw err;
            await new Promise((r) => setTimeout(r, Math.max(0, (err.retryAt ?? 0) - Date.now())));
          }
        }
        throw new Error('never answered');
      }),
    );
    const failed = all.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    return all.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  };
  return { side, lookups, publisher, publishAll };
}

async function setup(t: Test, options: GitHubSimulatorOptions = {}) {
  const sim = await startGitHubSimulator({ tokens: [TOKEN], ...options });
  const db = openDatabase(':memory:');
  t.teardown(async () => {
    db.close();
    await sim.close();
  });
  return { sim, db };
}

/** `n` targets, each the one workload of its repository (rig's `target` names one workload: a repository holds one lineage). */
const targets = (n: number, seed = 'c') => Array.from({ length: n }, (_, i) => target(sha(`${seed}-${i}`), `${OWNER}/r${i}`));

const count = (sim: GitHubSimulator, from = 0) => {
  const rs = sim.requests.slice(from);
  return {
    list: rs.filter((r) => r.method === 'GET' && /\/deployments$/.test(r.path)).length,
    listStatuses: rs.filter((r) => r.method === 'GET' && /\/statuses$/.test(r.path)).length,
    graphql: rs.filter((r) => r.path === '/graphql').length,
    creates: rs.filter((r) => r.method === 'POST' && /\/deployments$/.test(r.path) && r.didWork).length,
  };
};

const deploymentsOf = (sim: GitHubSimulator, repos: number) =>
  Array.from({ length: repos }, (_, i) => sim.deployments(OWNER, `r${i}`)).flat();

t.test('30 new targets at once: one REST find, the rest in one GraphQL query; one deployment each', async (t) => {
  const { sim, db } = await setup(t);
  const b = bridge(t, sim, db);
  const results = await b.publishAll(targets(30));
  t.equal(results.filter((r) => r.created).length, 30);
  t.same(count(sim), { list: 1, listStatuses: 0, graphql: 1, creates: 30 });
  t.equal(deploymentsOf(sim, 30).length, 30, 'no duplicate');
  t.match(b.lookups.state(), { queries: 1, asked: 29, answered: 29, failed: 0 });
  t.same(sim.violations, []);
});

t.test('a lost database: the batch adopts every deployment with its state, no read per deployment, nothing created', async (t) => {
  const { sim, db } = await setup(t);
  const all = targets(30);
  await bridge(t, sim, db).publishAll(all);
  const before = sim.requests.length;
  const lost = openDatabase(':memory:');
  t.teardown(() => lost.close());
  const results = await bridge(t, sim, lost).publishAll(all);
  t.same(
    results.map((r) => [r.created, r.sent]),
    all.map(() => [false, []]),
    'adopted at success: nothing sent again',
  );
  t.same(count(sim, before), { list: 1, listStatuses: 1, graphql: 1, creates: 0 });
  t.equal(deploymentsOf(sim, 30).length, 30);
});

t.test("a create whose answer was lost: the next process's batch finds it, no duplicate", async (t) => {
  const { sim, db } = await setup(t);
  const all = targets(12);
  // The first is looked up alone; the create of one batched target is applied but its answer lost.
  sim.inject({ method: 'POST', path: `/repos/${OWNER}/r1/deployments`, afterWork: 502 });
  await t.rejects(bridge(t, sim, db).publishAll(all));
  const orphan = sim.deployments(OWNER, 'r1').length;
  t.ok(orphan >= 1, 'the create arrived');
  // A new process over the same database: the provisional row makes it find first, in a batch.
  await bridge(t, sim, db).publishAll(all);
  for (let i = 0; i < 12; i++) t.equal(sim.deployments(OWNER, `r${i}`).length, 1, `r${i}: one deployment`);
});

t.test("a full page without the target's commit: the REST find decides, not the batch", async (t) => {
  const { sim, db } = await setup(t);
  const old = target(sha('old'), `${OWNER}/busy`);
  const b = bridge(t, sim, db);
  await b.publishAll([old]);
  // 100 newer deployments of the same environment push it off GraphQL's first page.
  const fill = Array.from({ length: 100 }, (_, i) => target(sha(`new-${i}`), `${OWNER}/busy`));
  await b.publishAll(fill);
  const lost = openDatabase(':memory:');
  t.teardown(() => lost.close());
  const before = sim.requests.length;
  const again = bridge(t, sim, lost);
  const [r] = await again.publishAll([target(sha('other'), `${OWNER}/r0`), old]);
  t.ok(r);
  t.equal(sim.deployments(OWNER, 'busy').length, 101, 'the old one adopted, no duplicate');
  t.ok(count(sim, before).list >= 2, 'the busy repository was asked over REST');
});

t.test('GraphQL budget spent: look-ups go to REST, nothing paused, no duplicate', async (t) => {
  const { sim, db } = await setup(t, { graphqlPointsPerHour: 0 });
  const b = bridge(t, sim, db);
  const results = await b.publishAll(targets(8));
  t.equal(results.length, 8);
  t.equal(sim.points.refused, 1, 'refused once, then left alone');
  t.equal(count(sim).list, 8, 'each found over REST');
  t.equal(deploymentsOf(sim, 8).length, 8);
  t.same(b.side.health.snapshot().pauses, []);
  t.match(b.lookups.state(), { restingUntil: /^\d{4}-/ });
});

t.test('a GraphQL query answered 502 once: the look-ups ask GraphQL again, not REST', async (t) => {
  const { sim, db } = await setup(t);
  sim.inject({ method: 'POST', path: '/graphql', status: 502 });
  const b = bridge(t, sim, db);
  await b.publishAll(targets(6));
  t.same(count(sim), { list: 1, listStatuses: 0, graphql: 2, creates: 6 });
  t.match(b.lookups.state(), { failed: 1, restingUntil: null });
});
