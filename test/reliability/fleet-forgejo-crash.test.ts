/**
 * The Forgejo crash-point table (forgejo-crash.test.ts) for a REMOTE Kustomization: its Deployment runs in a spoke,
 * and the hub's same-named Deployment of the same commit is reported by a local Kustomization in its own context.
 * The real bridge is SIGKILLed at each step of the spoke's commit statuses (read-back, pending mark → POST → record)
 * through rollout, a second commit and the entry leaving the inventory, then restarted on the same database. Forgejo
 * must end with one trail per (commit, context), the spoke's context `deploy/staging (prod-eu)`, the hub's untouched.
 */
import t, { type Test } from 'tap';
import { PROGRESSING, READY, putKustomization, sha } from '../e2e/scenario.js';
import type { ForgejoSimulator, StoredStatus } from '../harness/forgejo-sim.js';
import type { FakeKube } from '../harness/fake-kube.js';
import { kustomization } from '../harness/flux-objects.js';
import { putApp, putRemoteKustomization, startSpoke } from '../harness/spokes.js';
import { startWorld, type World } from '../harness/world.js';
import { crashFigures, crashTable, playStages, type CrashPoint, type Figures, type Stage as BaseStage, crashPoint } from './crash-run.js';

const A = sha('fleet-forgejo-crash-a');
const B = sha('fleet-forgejo-crash-b');
const HUB = 'sim-cluster';
const SPOKE = 'prod-eu';
const GONE = 'Deployment gone: ';
const BRIDGE_ENV = { CLEANUP_GRACE: '1s' };
const key = (cluster: string, commit: string) => `${cluster}:${commit}`;

interface Stage extends BaseStage {
  /** Every row /state shows, `<Flux object>:<sha>:<state>`, sorted. */
  cached: string[];
}

function stages(forgejo: ForgejoSimulator, spoke: FakeKube): Stage[] {
  const repo = `${forgejo.url}/acme/web`;
  const remote = (w: World, conditions: typeof READY, generation: number, inventory = true) => {
    if (inventory) putRemoteKustomization(w.kube, 'web', 'web', { secretName: `${SPOKE}-kubeconfig`, conditions, generation });
    else {
      const kubeConfig = { secretRef: { name: `${SPOKE}-kubeconfig` } };
      w.kube.put(kustomization({ namespace: 'flux-system', name: 'web', generation, conditions, kubeConfig, inventory: [] }));
    }
  };
  const hubA = { [key(HUB, A)]: ['success'] };
  return [
    {
      name: "the hub's own web live at A",
      apply: (w) => {
        putApp(w.kube, 'web', repo, A);
        putKustomization(w, 'hub-web', ['web'], READY, 1);
      },
      trails: hubA,
      cached: [`hub-web:${A}:success`],
    },
    {
      name: "the spoke's web rolling out A",
      apply: (w) => {
        putApp(spoke, 'web', repo, A);
        remote(w, PROGRESSING, 1);
      },
      trails: { ...hubA, [key(SPOKE, A)]: ['pending'] },
      cached: [`hub-web:${A}:success`, `web:${A}:in_progress`],
    },
    {
      name: "the spoke's A live",
      apply: (w) => remote(w, READY, 1),
      trails: { ...hubA, [key(SPOKE, A)]: ['pending', 'success'] },
      cached: [`hub-web:${A}:success`, `web:${A}:success`],
    },
    {
      name: "the spoke's B live, its A left as history",
      apply: (w) => {
        putApp(spoke, 'web', repo, B);
        remote(w, READY, 2);
      },
      trails: { ...hubA, [key(SPOKE, A)]: ['pending', 'success'], [key(SPOKE, B)]: ['success'] },
      cached: [`hub-web:${A}:success`, `web:${B}:success`],
    },
    {
      name: "the spoke's web leaves the inventory: B gone, the hub's A untouched",
      apply: (w) => {
        spoke.delete('apps/v1', 'Deployment', 'apps', 'web');
        remote(w, READY, 3, false);
      },
      trails: { ...hubA, [key(SPOKE, A)]: ['pending', 'success'], [key(SPOKE, B)]: ['success', 'gone'] },
      cached: [`hub-web:${A}:success`, `web:${B}:gone`],
    },
  ];
}
/** Applied writes: the hub's success on A; the spoke's pending and success on A, success and gone on B. */
const LIFECYCLE_WRITES = 5;

const statusesOf = (c: string) => new RegExp(`^/repos/acme/web/statuses/${c}$`);
const at = (title: string, method: CrashPoint['method'], c: string, skip: number, when: CrashPoint['when'], stage: number) =>
  crashPoint(title, method, statusesOf(c), skip, when, stage);
/** The hub's read-back and success of A come first (stage 0): every point below falls in the spoke's context. */
const POINTS: CrashPoint[] = [
  at("read-back of A for the spoke's new context, killed as the GET arrives", 'GET', A, 1, 'before', 1),
  at('pending mark for pending(spoke A), before the POST reaches Forgejo', 'POST', A, 1, 'before', 1),
  at('after pending(spoke A) (stored, answer lost)', 'POST', A, 1, 'after', 1),
  at('pending mark for success(spoke A), before the POST reaches Forgejo', 'POST', A, 2, 'before', 2),
  at('after success(spoke A) (stored, answer lost)', 'POST', A, 2, 'after', 2),
  at('read-back of B (new context), killed as the GET arrives', 'GET', B, 0, 'before', 3),
  at('after success(spoke B) (stored, answer lost)', 'POST', B, 0, 'after', 3),
  at('pending mark for gone(spoke B), before the POST reaches Forgejo', 'POST', B, 1, 'before', 4),
  at('after gone(spoke B) (stored, answer lost)', 'POST', B, 1, 'after', 4),
];

const label = (s: StoredStatus) => (s.state === 'success' && s.description.startsWith(GONE) ? 'gone' : s.state);
const contextOf = (cluster: string) => `deploy/staging (${cluster})`;

async function play(t: Test, point: CrashPoint | undefined): Promise<Figures> {
  const world = await startWorld({ forgejo: { repos: ['acme/web'], commits: { 'acme/web': [A, B] } } });
  const forgejo = world.forgejo!;
  const spoke = await startSpoke(world.kube, SPOKE);
  t.teardown(() => spoke.kube.close());
  const trailOf = (k: string) => {
    const [cluster, commit] = k.split(':');
    return forgejo
      .statuses('acme', 'web', commit!)
      .filter((s) => s.context === contextOf(cluster!))
      .map(label);
  };
  const played = await playStages(t, {
    world,
    forge: forgejo,
    env: BRIDGE_ENV,
    point,
    stages: stages(forgejo, spoke.kube),
    trailOf,
    cached: (s, stage) =>
      JSON.stringify(s.deployments.map((d) => `${d.fluxObject.split('/').at(-1)}:${d.sha}:${d.state}`).sort()) ===
      JSON.stringify([...stage.cached].sort()),
  });

  const contexts = [A, B].flatMap((c) => forgejo.statuses('acme', 'web', c).map((s) => `${c === A ? 'A' : 'B'} ${s.context}`));
  t.same(
    [...new Set(contexts)].sort(),
    [`A ${contextOf(SPOKE)}`, `A ${contextOf(HUB)}`, `B ${contextOf(SPOKE)}`],
    'one context per cluster',
  );
  t.same(trailOf(key(HUB, A)), ['success'], "the hub's A ends live, never touched");
  t.same(trailOf(key(SPOKE, A)), ['pending', 'success'], "the spoke's A left as history");
  t.same(trailOf(key(SPOKE, B)), ['success', 'gone'], "the spoke's B ends gone");
  t.equal(forgejo.writes().length, LIFECYCLE_WRITES, 'no applied write beyond the lifecycle');
  t.same(forgejo.violations, [], "every request matched Forgejo's swagger");
  t.same([...world.kube.writes(), ...spoke.kube.writes()], [], 'nothing written to either cluster');
  return crashFigures(t, point, played, forgejo, LIFECYCLE_WRITES);
}

crashTable(t, 'Forgejo, a remote Kustomization: SIGKILL at each step of the spoke context, restart on the same database', POINTS, play);
