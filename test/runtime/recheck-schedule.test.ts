import t from 'tap';
import { RECHECK_INITIAL_MS, RECHECK_MAX_MS, WATCHED_RECHECK_MS } from '../../src/lifecycle/recheck-delay.js';
import { RecheckSchedule } from '../../src/runtime/recheck-schedule.js';

const WEB = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'web' };
const API = { kind: 'HelmRelease' as const, namespace: 'flux-system', name: 'api' };
const GRACE_MS = 15_000;

t.test('a rollout backs off per source; anything else resets it', (t) => {
  const s = new RecheckSchedule(GRACE_MS);
  t.same(
    [1, 2, 3, 4, 5, 6].map(() => s.delayAfter(WEB, 'rollout')),
    [RECHECK_INITIAL_MS, 10_000, 20_000, 40_000, RECHECK_MAX_MS, RECHECK_MAX_MS],
  );
  t.equal(s.delayAfter(API, 'rollout'), RECHECK_INITIAL_MS, 'each source counts its own');
  t.equal(s.delayAfter(WEB, null), undefined, 'rolled out: no re-check of its own');
  t.equal(s.delayAfter(WEB, 'rollout'), RECHECK_INITIAL_MS, 'the next rollout starts over');
  t.equal(s.delayAfter(WEB, 'cleanup'), GRACE_MS, 'a cleanup waits out its grace');
  t.equal(s.delayAfter(WEB, 'rollout'), RECHECK_INITIAL_MS, 'and resets the rollout count too');
  t.equal(s.delayAfter(API, 'rollout'), 10_000, 'the other source kept its count');
  t.end();
});

t.test('a rollout whose workloads are all under a held watch: the re-check is only the safety net', (t) => {
  const s = new RecheckSchedule(GRACE_MS);
  t.equal(s.delayAfter(WEB, 'rollout', true), WATCHED_RECHECK_MS, 'watched: minutes away');
  t.equal(s.delayAfter(WEB, 'rollout', false), 10_000, 'the watch lost: the schedule goes on where it was');
  t.equal(s.delayAfter(WEB, 'cleanup', true), GRACE_MS, 'a cleanup waits out its grace, watch or not');
  t.equal(s.delayAfter(WEB, null, true), undefined, 'nothing to wait for');
  t.end();
});
