import t from 'tap';
import { countsForDora, doraFigures, median, type DeploymentFact, type DoraOptions } from '../../../src/features/dora/dora.js';

const H = 3_600_000;
const D = 24 * H;
const NOW = 100 * D;
const OPTS: DoraOptions = { now: NOW, windowMs: 30 * D, rollbackWindowMs: D };

/** A production fact of `sha`, started `at` (ms before NOW), with the rest given. */
function fact(sha: string, at: number, rest: Partial<DeploymentFact> = {}): DeploymentFact {
  return {
    forge: 'github',
    repository: 'acme/shop',
    environment: 'production',
    sha,
    commitAt: null,
    startedAt: NOW - at,
    succeededAt: null,
    failedAt: null,
    cluster: 'eu-1',
    superseded: false,
    production: false,
    transient: false,
    ...rest,
  };
}

const ok = (sha: string, at: number, rest: Partial<DeploymentFact> = {}) => fact(sha, at, { succeededAt: NOW - at + H, ...rest });

t.test('the table: one row per case', (t) => {
  const rows: Array<{ name: string; facts: DeploymentFact[]; opts?: Partial<DoraOptions>; want: Record<string, unknown> }> = [
    {
      name: 'an empty history: no row at all',
      facts: [],
      want: {},
    },
    {
      name: 'two successes over 30 days, commit times known',
      facts: [ok('a', 10 * D, { commitAt: NOW - 10 * D - H }), ok('b', 2 * D, { commitAt: NOW - 2 * D - 3 * H })],
      want: { perDay: 2 / 30, perWeek: (2 / 30) * 7, leadTimesMs: [2 * H, 4 * H], leadTimeMedianMs: 3 * H, changeFailureRate: 0 },
    },
    {
      name: 'no commit time: the lead time is absent, not 0',
      facts: [ok('a', 5 * D)],
      want: { leadTimesMs: [], leadTimeMedianMs: undefined, skewClamped: 0, deployments: 1 },
    },
    {
      name: 'a rollback: the success followed by an older commit within a day is a failed change',
      facts: [ok('old', 5 * D), ok('new', 3 * D), ok('old2', 3 * D - 2 * H, { sha: 'old' })],
      want: { deployments: 3, failedChanges: 1, changeFailureRate: 1 / 3 },
    },
    {
      name: 'an older commit after the rollback window is no rollback',
      facts: [ok('old', 5 * D), ok('new', 4 * D), ok('back', 2 * D, { sha: 'old' })],
      want: { failedChanges: 0, changeFailureRate: 0 },
    },
    {
      name: 'the same commit again (another workload) is passed over: the older commit after it rolls both back',
      facts: [ok('old', 5 * D), ok('new', 3 * D), ok('new', 3 * D - 2 * H), ok('old', 3 * D - 3 * H)],
      want: { deployments: 4, failedChanges: 2 },
    },
    {
      name: 'two deployments that start at once: the first recorded is the next one (a newer commit: no rollback)',
      facts: [ok('a', 5 * D), ok('b', 3 * D), ok('c', 3 * D - 2 * H), ok('a', 3 * D - 2 * H)],
      want: { deployments: 4, failedChanges: 0 },
    },
    {
      name: 'a failure is restored by the first success after it, not by an earlier or a later one',
      facts: [ok('z', 6 * D), fact('a', 4 * D, { failedAt: NOW - 4 * D + H }), ok('b', 4 * D - 5 * H), ok('c', 2 * D)],
      want: { restoreTimesMs: [5 * H], unrestored: 0 },
    },
    {
      name: 'the commit order, when given, decides which commit is older',
      facts: [ok('x', 5 * D), ok('y', 3 * D)],
      opts: { rollbackWindowMs: 3 * D, commitOrder: new Map([['acme/shop', ['y', 'x']]]) },
      want: { failedChanges: 1 },
    },
    {
      name: 'a failure followed by a success: failed change, restored in 5 hours',
      facts: [fact('a', 4 * D, { failedAt: NOW - 4 * D + H }), ok('b', 4 * D - 5 * H, { succeededAt: NOW - 4 * D + 6 * H })],
      want: { deployments: 2, failedChanges: 1, changeFailureRate: 0.5, restoreTimesMs: [5 * H], restoreMedianMs: 5 * H, unrestored: 0 },
    },
    {
      name: 'a failure retried to success on the same commit: one deployment, failed, restored',
      facts: [fact('a', 2 * D, { failedAt: NOW - 2 * D + H, succeededAt: NOW - 2 * D + 3 * H })],
      want: { deployments: 1, failedChanges: 1, restoreTimesMs: [2 * H], perDay: 1 / 30 },
    },
    {
      name: 'a failure not restored yet: no restore time, counted as unrestored',
      facts: [fact('a', D, { failedAt: NOW - D + H })],
      want: { restoreTimesMs: [], restoreMedianMs: undefined, unrestored: 1, changeFailureRate: 1, perDay: 0 },
    },
    {
      name: 'clock skew: a commit "after" its rollout counts 0 and is counted as clamped',
      facts: [ok('a', D, { commitAt: NOW - D + 2 * H }), ok('b', 2 * D, { commitAt: NOW - 2 * D - H })],
      want: { leadTimesMs: [2 * H, 0].sort(), leadTimeMedianMs: H, skewClamped: 1 },
    },
    {
      name: 'the window boundary: a success at its start counts, one just before it does not, one at now does not',
      facts: [
        fact('in', 31 * D, { succeededAt: NOW - 30 * D }),
        fact('out', 31 * D, { succeededAt: NOW - 30 * D - 1 }),
        fact('late', 0, { succeededAt: NOW }),
      ],
      want: { perDay: 1 / 30, deployments: 1 },
    },
    {
      name: 'a history known only since 10 days ago: the rate is over those 10 days',
      facts: [ok('a', 5 * D)],
      opts: { since: NOW - 10 * D },
      want: { perDay: 1 / 10, perWeek: 7 / 10 },
    },
    {
      name: 'a history that starts now (a lost database): the rates are absent, not 0',
      facts: [fact('a', 0)],
      opts: { since: NOW },
      want: { perDay: undefined, perWeek: undefined, deployments: 0, changeFailureRate: undefined },
    },
  ];
  for (const row of rows) {
    const got = doraFigures(row.facts, { ...OPTS, ...row.opts });
    if (row.facts.length === 0) {
      t.same(got, [], row.name);
      continue;
    }
    t.equal(got.length, 1, `${row.name}: one environment`);
    const figures = got[0]! as unknown as Record<string, unknown>;
    for (const [k, v] of Object.entries(row.want)) {
      if (Array.isArray(v))
        t.same(
          [...(figures[k] as number[])].sort((a, b) => a - b),
          [...(v as number[])].sort((a, b) => a - b),
          `${row.name}: ${k}`,
        );
      else if (typeof v === 'number') t.ok(Math.abs((figures[k] as number) - v) < 1e-9, `${row.name}: ${k} ${String(figures[k])} ≈ ${v}`);
      else t.equal(figures[k], v, `${row.name}: ${k}`);
    }
  }
  t.end();
});

t.test('a commit that never reached production: counted in staging only when asked, never in production', (t) => {
  const staging = ok('c', 2 * D, { environment: 'staging' });
  const prod = ok('a', 3 * D, { commitAt: NOW - 3 * D });
  t.same(
    doraFigures([staging, prod], OPTS).map((f) => [f.environment, f.deployments]),
    [['production', 1]],
    'staging is not counted by default; production has its one deployment, not the staging commit',
  );
  const both = doraFigures([staging, prod], { ...OPTS, include: (e) => e.startsWith('stag') });
  t.same(
    both.map((f) => [f.environment, f.deployments]),
    [
      ['production', 1],
      ['staging', 1],
    ],
  );
  t.end();
});

t.test('which environments count: production by name or flag, patterns, never previews', (t) => {
  const rows: Array<[Partial<DeploymentFact>, boolean, string]> = [
    [{ environment: 'production' }, true, 'production'],
    [{ environment: 'Prod' }, true, 'prod, any case'],
    [{ environment: 'live', production: true }, true, 'the production flag'],
    [{ environment: 'staging' }, false, 'staging'],
    [{ environment: 'production/eu-1' }, true, 'a per-cluster production environment'],
    [{ environment: 'prod/us-1' }, true, 'the short folder'],
    [{ environment: 'production-like' }, false, 'a name that only starts like it'],
    [{ environment: 'preprod' }, false, 'preprod'],
    [{ environment: 'production', transient: true }, false, 'a preview named production'],
    [{ environment: 'pr-1', transient: true, production: true }, false, 'a flagged preview'],
  ];
  for (const [rest, want, name] of rows) t.equal(countsForDora(fact('a', D, rest)), want, name);
  t.equal(
    countsForDora(fact('a', D, { environment: 'eu-live' }), (e) => e.endsWith('-live')),
    true,
    'included by pattern',
  );
  t.end();
});

t.test('median, and environments kept apart', (t) => {
  t.equal(median([]), undefined);
  t.equal(median([3, 1, 2]), 2);
  t.equal(median([4, 1, 2, 3]), 2.5);
  const figures = doraFigures([ok('a', D), ok('a', D, { forge: 'gitlab' }), ok('a', D, { environment: 'prod' })], OPTS);
  t.same(
    figures.map((f) => `${f.forge} ${f.environment} ${f.deployments}`),
    ['github prod 1', 'github production 1', 'gitlab production 1'],
  );
  t.end();
});
