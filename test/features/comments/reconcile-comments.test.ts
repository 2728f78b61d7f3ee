/** The reconcile feeding pull request comments: a row per published workload of a named pull request, gone after cleanup. */
import t from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { PullRequestComments } from '../../../src/features/comments/pr-comments.js';
import { CommentStore } from '../../../src/features/comments/comment-store.js';
import { kustomization } from '../../harness/flux-objects.js';
import { MemoryComments } from './memory-comments.js';
import { GRACE_MS, READY, SOURCE, sha, startReconcileRig } from '../../reconcile/reconcile-rig.js';

const WEB = sha('web-pr');

function rig(t: Parameters<typeof startReconcileRig>[0], lookup = false) {
  const forge = new MemoryComments();
  forge.pullRequests.set(7, { open: true, locked: false });
  let keeper: PullRequestComments | undefined;
  let store: CommentStore | undefined;
  const r = startReconcileRig(t, {
    comments: (db) => {
      store = new CommentStore(db);
      keeper = new PullRequestComments({
        store,
        ports: { github: forge },
        cluster: 'test',
        windowMs: 0,
        dryRun: false,
        metrics: createMetrics(),
        log: pino({ level: 'silent' }),
        now: () => r.clock.now,
        later: () => undefined,
        lookup,
      });
      return keeper;
    },
  });
  return { ...r, forge, keeper: keeper!, store: store! };
}

t.test("the Flux object's change_request names the pull request; the row goes gone with the workload", async (t) => {
  const r = rig(t);
  r.workload('web', WEB);
  const inventory = [{ namespace: 'apps', name: 'web', group: 'apps', kind: 'Deployment' }];
  r.kube.put(kustomization({ ...SOURCE, annotations: { 'event.toolkit.fluxcd.io/change_request': '7' }, conditions: READY, inventory }));
  await r.reconcile();
  await r.keeper.flushDue();
  t.equal(r.forge.comments.length, 1);
  t.match(r.forge.bodies(7)[0], /\| web \| staging \| live \|/);
  t.match(r.store.rowsOf({ forge: 'github', owner: 'acme', repo: 'web', environment: 'staging', deploymentName: 'web' }), [
    { key: { pr: 7 }, why: /change_request/ },
  ]);

  r.kube.put(
    kustomization({ ...SOURCE, annotations: { 'event.toolkit.fluxcd.io/change_request': '7' }, conditions: READY, inventory: [] }),
  );
  await r.reconcile();
  r.clock.now += GRACE_MS;
  await r.reconcile();
  await r.keeper.flushDue();
  t.match(r.forge.bodies(7)[0], /The preview is gone/);
  t.equal(r.forge.comments.length, 1);
});

t.test('an annotation that names no pull request: reported, and a skip with its reason (recorded once)', async (t) => {
  const r = rig(t);
  r.workload('web', WEB, {
    annotations: { 'github-deployment-bridge.io/auto-report': 'true', 'github-deployment-bridge.io/pull-request': 'feature/x' },
  });
  r.source(READY, ['web']);
  t.match(await r.reconcile(), { statusesSent: 1, skipped: 1 });
  t.match(r.sources.listSkips(), [
    { code: 'bad_pull_request', reason: /reported, but no pull request comment row: .*names no pull request/ },
  ]);
  t.match(r.deployments.list(), [{ repo: 'web', state: 'success' }], 'the deployment is still reported');
  t.equal(r.forge.comments.length, 0);
});

t.test('PULL_REQUEST_LOOKUP: no annotation, the open pull request with the commit as its head; asked once per commit', async (t) => {
  const r = rig(t, true);
  r.forge.heads.set(WEB, 7);
  r.workload('web', WEB);
  r.source(READY, ['web']);
  await r.reconcile();
  await r.reconcile();
  await r.keeper.flushDue();
  t.match(r.store.rowsOf({ forge: 'github', owner: 'acme', repo: 'web', environment: 'staging', deploymentName: 'web' }), [
    { key: { pr: 7 }, why: /PULL_REQUEST_LOOKUP/ },
  ]);
  t.equal(r.forge.comments.length, 1);
  t.equal(r.forge.reads, 2, 'one lookup for the commit (two reconciles), one read of the pull request before the create');

  const off = rig(t);
  off.forge.heads.set(WEB, 7);
  off.workload('web', WEB);
  off.source(READY, ['web']);
  await off.reconcile();
  await off.keeper.flushDue();
  t.equal(off.forge.reads + off.forge.comments.length, 0, 'off by default: not asked, no comment');
});
