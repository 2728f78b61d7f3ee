import t from 'tap';
import { DORA_CACHE_MS, DoraCache, stillStands } from '../../../src/features/dora/dora-cache.js';
import type { DeploymentFact } from '../../../src/features/dora/dora.js';

const H = 3_600_000;
const NOW = 100 * 24 * H;

t.test('figures still stand: the same outcomes, less than the age, not from the future', (t) => {
  const c = { version: '7:7', at: NOW };
  const rows: Array<[string, Parameters<typeof stillStands>, boolean]> = [
    ['nothing computed yet', [undefined, '7:7', NOW, DORA_CACHE_MS], false],
    ['the same outcomes at once', [c, '7:7', NOW, DORA_CACHE_MS], true],
    ['the same outcomes just under a minute on', [c, '7:7', NOW + DORA_CACHE_MS - 1, DORA_CACHE_MS], true],
    ['a minute on: the window slid', [c, '7:7', NOW + DORA_CACHE_MS, DORA_CACHE_MS], false],
    ['an outcome appended', [c, '8:8', NOW + 1, DORA_CACHE_MS], false],
    ['an outcome pruned', [c, '7:6', NOW + 1, DORA_CACHE_MS], false],
    ['the clock set back', [c, '7:7', NOW - 1, DORA_CACHE_MS], false],
  ];
  for (const [name, args, want] of rows) t.equal(stillStands(...args), want, name);
  t.end();
});

/** A store whose outcomes the test changes, counting the reads of every outcome. */
function fakeStore() {
  const s = {
    reads: 0,
    version: '1:1',
    facts: [
      {
        forge: 'github',
        repository: 'acme/shop',
        environment: 'production',
        sha: 'a',
        commitAt: null,
        startedAt: NOW - 10 * H,
        succeededAt: NOW - 9 * H,
        failedAt: null,
        cluster: null,
        superseded: false,
        production: false,
        transient: false,
      },
    ] as DeploymentFact[],
  };
  const store = {
    facts: () => {
      s.reads++;
      return s.facts;
    },
    since: () => NOW - 20 * H,
    version: () => s.version,
  };
  return { s, store };
}

t.test('the cache: computed once per change of outcomes or per minute, the same figures between', (t) => {
  const { s, store } = fakeStore();
  const cache = new DoraCache(store);
  const first = cache.figures(NOW);
  t.equal(first.length, 1);
  t.equal(first[0]?.deployments, 1);
  t.equal(cache.figures(NOW + 1_000), first, 'a second scrape: the same array');
  t.equal(s.reads, 1, 'the outcomes read once');
  s.version = '2:2';
  s.facts = [...s.facts, { ...s.facts[0]!, sha: 'b', startedAt: NOW - 2 * H, succeededAt: NOW - H }];
  const second = cache.figures(NOW + 2_000);
  t.equal(s.reads, 2, 'a new outcome: read again');
  t.equal(second[0]?.deployments, 2);
  t.equal(cache.figures(NOW + 2_000 + DORA_CACHE_MS - 1), second);
  t.equal(s.reads, 2);
  cache.figures(NOW + 2_000 + DORA_CACHE_MS);
  t.equal(s.reads, 3, 'a minute on: read again (the window slides)');
  t.end();
});

t.test('the window slides even without a new outcome: an old success leaves the figures after the minute', (t) => {
  const { store } = fakeStore();
  const cache = new DoraCache(store, undefined, 1_000);
  const day = 24 * H;
  t.equal(cache.figures(NOW + 30 * day - 9 * H - 1)[0]?.deployments, 1, 'the success is inside the 30 days');
  t.equal(cache.figures(NOW + 30 * day - 9 * H + 500)[0]?.deployments, 1, 'within the age: the figures stand');
  t.equal(cache.figures(NOW + 30 * day - 9 * H + 1_000)[0]?.deployments, 0, 'past the age: computed again, the success left the window');
  t.end();
});

t.test('DORA_ENVIRONMENTS: the include reaches the figures', (t) => {
  const { s, store } = fakeStore();
  s.facts = [{ ...s.facts[0]!, environment: 'qa-1' }];
  t.same(new DoraCache(store).figures(NOW), [], 'qa-1 not counted by default');
  t.equal(new DoraCache(store, (e) => e.startsWith('qa-')).figures(NOW).length, 1);
  t.end();
});

t.test("/state's summary: made once per computation, the figures' own", (t) => {
  const { s, store } = fakeStore();
  const cache = new DoraCache(store);
  const summary = cache.summary(NOW);
  t.equal(summary.environments.length, 1);
  t.equal(summary.environments[0]?.deployments, 1);
  t.equal(cache.summary(NOW + 1), summary, 'the same object while the figures stand');
  s.version = '2:2';
  const next = cache.summary(NOW + 2);
  t.not(next, summary, 'a new one once the figures were computed again');
  t.equal(s.reads, 2);
  t.end();
});
