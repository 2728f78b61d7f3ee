import t from 'tap';
import { CLEANUP_GRACE_MS, goneDescription, observeMissing, shouldDeactivate, type Absence } from '../../src/lifecycle/absence.js';

const T0 = Date.parse('2025-06-01T12:00:00Z');

/** Replays reads (time, missing?) and says, after each, whether deployments would turn inactive. */
function replay(reads: Array<[at: number, missing: boolean]>, graceMs = CLEANUP_GRACE_MS): boolean[] {
  let absence: Absence | undefined;
  return reads.map(([at, missing]) => {
    absence = missing ? observeMissing(absence, T0 + at) : undefined;
    return absence !== undefined && shouldDeactivate(absence, T0 + at, graceMs);
  });
}

t.test('observeMissing starts and extends a streak', (t) => {
  const first = observeMissing(undefined, T0);
  t.same(first, { firstMissingAt: T0, confirmations: 1 });
  t.same(observeMissing(first, T0 + 7_000), { firstMissingAt: T0, confirmations: 2 }, 'keeps the first time');
  t.same(observeMissing(observeMissing(first, T0 + 1), T0 + 2), { firstMissingAt: T0, confirmations: 3 });
  t.end();
});

t.test('shouldDeactivate needs two reads and the grace period', (t) => {
  const rows: Array<[name: string, a: Absence, now: number, want: boolean]> = [
    ['one read, long ago', { firstMissingAt: T0, confirmations: 1 }, T0 + 3_600_000, false],
    ['two reads, inside the grace', { firstMissingAt: T0, confirmations: 2 }, T0 + 14_999, false],
    ['two reads, grace just over', { firstMissingAt: T0, confirmations: 2 }, T0 + 15_000, true],
    ['five reads, grace over', { firstMissingAt: T0, confirmations: 5 }, T0 + 60_000, true],
    ['clock went backwards', { firstMissingAt: T0, confirmations: 2 }, T0 - 1_000, false],
  ];
  for (const [name, a, now, want] of rows) t.equal(shouldDeactivate(a, now), want, name);
  t.equal(shouldDeactivate({ firstMissingAt: T0, confirmations: 2 }, T0, 0), true, 'zero grace: two reads suffice');
  t.equal(shouldDeactivate({ firstMissingAt: T0, confirmations: 2 }, T0 + 20_000, 30_000), false, 'a longer configured grace');
  t.equal(CLEANUP_GRACE_MS, 15_000, 'default grace is 15 s');
  t.end();
});

t.test('read sequences', (t) => {
  t.same(
    replay([
      [0, true],
      [5_000, true],
      [15_000, true],
    ]),
    [false, false, true],
    'gone for good',
  );
  t.same(
    replay([
      [0, true],
      [16_000, true],
    ]),
    [false, true],
    'second read after the grace',
  );
  t.same(
    replay([
      [0, true],
      [10_000, false],
      [20_000, true],
      [30_000, true],
      [35_000, true],
    ]),
    [false, false, false, false, true],
    'an API blip: seen again resets the streak and the clock',
  );
  t.same(
    replay([
      [0, false],
      [15_000, false],
    ]),
    [false, false],
    'never missing',
  );
  t.end();
});

t.test('goneDescription says why', (t) => {
  const ks = { kind: 'Kustomization' as const, namespace: 'apps', name: 'web' };
  t.equal(goneDescription({ kind: 'source_deleted', source: ks }), 'Flux Kustomization apps/web was deleted');
  t.equal(
    goneDescription({ kind: 'source_deleted', source: { kind: 'HelmRelease', namespace: 'preview-42', name: 'shop' } }),
    'Flux HelmRelease preview-42/shop was deleted',
  );
  t.equal(goneDescription({ kind: 'pruned', source: ks }), 'removed from the inventory of Kustomization apps/web');
  t.equal(
    goneDescription({ kind: 'workload_gone', workload: { kind: 'Deployment', namespace: 'apps', name: 'api' } }),
    'Deployment apps/api no longer exists',
  );
  t.equal(
    goneDescription({ kind: 'namespace_gone', workload: { kind: 'StatefulSet', namespace: 'preview-42', name: 'db' } }),
    'namespace preview-42 was deleted (with StatefulSet db)',
  );
  t.end();
});
