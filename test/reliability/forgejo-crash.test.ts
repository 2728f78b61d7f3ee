/**
 * The Forgejo twin of the crash-point table (crash.test.ts): the real bridge process is SIGKILLed at
 * each step of the commit-status protocol (read-back GET, pending mark → status POST → record), then a
 * new process starts on the same database. Crash points are exact: a Forgejo simulator hook kills the
 * bridge as a request arrives (the status never lands) or once Forgejo stored it (the answer is lost).
 * Every run plays two commits from rollout to cleanup and must end with the statuses of a run without
 * a crash, no extra applied write, and at most one read of a commit's statuses per restart.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { deployment } from '../harness/flux-objects.js';
import type { ForgejoSimulator, StoredStatus } from '../harness/forgejo-sim.js';
import { startWorld, type World } from '../harness/world.js';
import { OPT_IN, PROGRESSING, READY, finishRollout, putKustomization, sha } from '../e2e/scenario.js';
import { crashFigures, crashTable, playStages, type CrashPoint, type Figures, type Stage as BaseStage, crashPoint } from './crash-run.js';

const A = sha('forgejo-crash-a');
const B = sha('forgejo-crash-b');
/** The default context of environment `staging` (the world's) in cluster sim-cluster. */
const CONTEXT = 'deploy/staging (sim-cluster)';
const GONE = 'Deployment gone: ';
/** Cleanup after one second of absence instead of 15: the grace plays no part in crash safety. */
const BRIDGE_ENV = { CLEANUP_GRACE: '1s' };

const forgejoOf = (world: World): ForgejoSimulator => {
  if (world.forgejo === undefined) throw new Error('this world has no Forgejo');
  return world.forgejo;
};

/** The opted-in Deployment apps/web running `commit` of `<forgejo>/acme/web` (annotated: no registry), rollout finished. */
function putWeb(world: World, commit: string): void {
  const annotations = {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': `${forgejoOf(world).url}/acme/web`,
    'github-deployment-bridge.io/commit': commit,
  };
  world.kube.put(
    deployment({
      namespace: 'apps',
      name: 'web',
      annotations,
      containers: [{ name: 'app', image: `registry.invalid/acme/web:${commit.slice(0, 7)}` }],
    }),
  );
  finishRollout(world, 'web');
}

/** Trails name each status by its state, or `gone` for a "Deployment gone" success. */
interface Stage extends BaseStage {
  /** Every row /state shows, `<sha>:<state>`, sorted: no provisional row, no other commit. */
  cached: string[];
}

const STAGES: Stage[] = [
  {
    name: 'commit A rolling out',
    apply: (w) => {
      putWeb(w, A);
      putKustomization(w, 'web', ['web'], PROGRESSING, 1);
    },
    trails: { [A]: ['pending'] },
    cached: [`${A}:in_progress`],
  },
  {
    name: 'commit A live',
    apply: (w) => putKustomization(w, 'web', ['web'], READY, 1),
    trails: { [A]: ['pending', 'success'] },
    cached: [`${A}:success`],
  },
  {
    name: 'commit B live, A left as history',
    apply: (w) => {
      putWeb(w, B);
      putKustomization(w, 'web', ['web'], READY, 2);
    },
    trails: { [A]: ['pending', 'success'], [B]: ['success'] },
    cached: [`${B}:success`],
  },
  {
    name: 'source deleted, B gone',
    apply: (w) => {
      w.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'web');
      w.kube.delete('apps/v1', 'Deployment', 'apps', 'web');
    },
    trails: { [A]: ['pending', 'success'], [B]: ['success', 'gone'] },
    cached: [`${B}:gone`],
  },
];
/** Applied writes of the whole lifecycle: pending and success on A, success and gone on B. */
const LIFECYCLE_WRITES = 4;

const statusesOf = (c: string) => new RegExp(`^/repos/acme/web/statuses/${c}$`);
const crashAt = (title: string, method: CrashPoint['method'], c: string, skip: number, when: CrashPoint['when'], stage: number) =>
  crashPoint(title, method, statusesOf(c), skip, when, stage);
const POINTS: CrashPoint[] = [
  crashAt('read-back of A (new context), killed as the GET arrives', 'GET', A, 0, 'before', 0),
  crashAt('pending mark for pending(A), before the POST reaches Forgejo', 'POST', A, 0, 'before', 0),
  crashAt('after pending(A) (stored, answer lost)', 'POST', A, 0, 'after', 0),
  crashAt('pending mark for success(A), before the POST reaches Forgejo', 'POST', A, 1, 'before', 1),
  crashAt('after success(A) (stored, answer lost)', 'POST', A, 1, 'after', 1),
  crashAt('read-back of B (new context), killed as the GET arrives', 'GET', B, 0, 'before', 2),
  crashAt('pending mark for success(B), before the POST reaches Forgejo', 'POST', B, 0, 'before', 2),
  crashAt('after success(B) (stored, answer lost)', 'POST', B, 0, 'after', 2),
  crashAt('pending mark for gone(B), before the POST reaches Forgejo', 'POST', B, 1, 'before', 3),
  crashAt('after gone(B) (stored, answer lost)', 'POST', B, 1, 'after', 3),
];

const label = (s: StoredStatus) => (s.state === 'success' && s.description.startsWith(GONE) ? 'gone' : s.state);
const trailOf = (world: World, commit: string) => forgejoOf(world).statuses('acme', 'web', commit).map(label);

/**
 * Reads of each commit's statuses the restarted process made before its next POST to that commit
 * (or the end of the run): the rule is at most one per context per restart. A commit first reported
 * after the restart counts its one ordinary read of a new context.
 */
function readsAfterRestart(forgejo: ForgejoSimulator, restartedAt: number): Record<string, number> {
  const after = forgejo.requests.slice(restartedAt);
  return Object.fromEntries(
    [A, B].map((c) => {
      const mine = after.filter((r) => statusesOf(c).test(r.path));
      const firstPost = mine.findIndex((r) => r.method === 'POST');
      return [c, (firstPost < 0 ? mine : mine.slice(0, firstPost)).filter((r) => r.method === 'GET').length];
    }),
  );
}

/** No row of the bridge's database is left provisional or with a pending mark. */
function leftPending(world: World): unknown[] {
  const db = new Database(join(world.dir, 'bridge.db'), { readonly: true });
  try {
    return db.prepare(`SELECT sha, context, state, pending_state FROM deployments WHERE state IS NULL OR pending_state IS NOT NULL`).all();
  } finally {
    db.close();
  }
}

/** Plays the four stages; with a crash point, SIGKILLs the bridge there and restarts it on the same database. */
async function play(t: Test, point: CrashPoint | undefined): Promise<Figures> {
  const world = await startWorld({ forgejo: { repos: ['acme/web'], commits: { 'acme/web': [A, B] } } });
  const forgejo = forgejoOf(world);
  const played = await playStages(t, {
    world,
    forge: forgejo,
    env: BRIDGE_ENV,
    point,
    stages: STAGES,
    trailOf: (commit) => trailOf(world, commit),
    // Exactly the stage's rows: none provisional, none of a commit left as history.
    cached: (s, stage) => JSON.stringify(s.deployments.map((d) => `${d.sha}:${d.state}`).sort()) === JSON.stringify(stage.cached),
  });

  t.same(trailOf(world, A), ['pending', 'success'], 'commit A ends live, left as history');
  t.same(trailOf(world, B), ['success', 'gone'], 'commit B ends gone');
  const all = [...forgejo.statuses('acme', 'web', A), ...forgejo.statuses('acme', 'web', B)];
  t.same([...new Set(all.map((s) => s.context))], [CONTEXT], 'one context throughout');
  t.match(
    forgejo.statuses('acme', 'web', B).at(-1),
    { state: 'success', target_url: '', description: /^Deployment gone: / },
    'the end has no link',
  );
  t.equal(forgejo.writes().length, LIFECYCLE_WRITES, 'no applied write beyond the lifecycle');
  t.same(forgejo.violations, [], "every request matched Forgejo's swagger");
  t.same(leftPending(world), [], 'no row left provisional or with a pending mark');
  if (played.restartedAt !== undefined) {
    const reads = readsAfterRestart(forgejo, played.restartedAt);
    t.comment(`reads after the restart before the next POST: A ${reads[A]}, B ${reads[B]}`);
    for (const c of [A, B]) t.ok(reads[c]! <= 1, `at most one read of ${c.slice(0, 7)}'s statuses after the restart (${reads[c]})`);
  }
  return crashFigures(t, point, played, forgejo, LIFECYCLE_WRITES);
}

crashTable(t, 'Forgejo: SIGKILL at each step of the commit-status protocol, restart on the same database', POINTS, play);
