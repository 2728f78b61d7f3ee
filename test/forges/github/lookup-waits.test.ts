/**
 * The look-up batcher's times, on its own (a query the test answers by hand, a clock it moves): a look-up asked
 * again while its batch's query is out waits about as long as the query has taken so far, so a query hanging
 * until its timeout is not asked about every window by every waiting workload.
 */
import t from 'tap';
import { pino } from 'pino';
import { DeploymentLookups } from '../../../src/forges/github/deployment-lookups.js';
import type { LookupTarget } from '../../../src/forges/github/deployment-query.js';
import type { GraphQLAnswer } from '../../../src/forges/github/github-types.js';

const WINDOW_MS = 5;
const log = pino({ level: 'silent' });
const target = (repo: string): LookupTarget => ({ owner: 'acme', repo, environment: 'staging', sha: 'a'.repeat(40), payload: {} });

t.test('a look-up asked again while its query is out waits as long as the query has taken, then takes its answer', async (t) => {
  const clock = { now: 1_000_000 };
  let answer: (a: GraphQLAnswer) => void = () => undefined;
  let queries = 0;
  const lookups = new DeploymentLookups({
    log,
    now: () => clock.now,
    windowMs: WINDOW_MS,
    query: () => {
      queries += 1;
      return new Promise<GraphQLAnswer>((resolve) => {
        answer = resolve;
      });
    },
  });
  t.teardown(() => lookups.stop());
  t.equal(lookups.join('a', target('a')), undefined, 'alone: the REST find');
  t.equal(lookups.join('b', target('b')), clock.now + 2 * WINDOW_MS, 'a burst: b joins the batch leaving in a window');
  for (let i = 0; i < 200 && queries === 0; i++) await new Promise((r) => setTimeout(r, 2));
  t.equal(queries, 1, 'the batch left');

  t.equal(lookups.join('b', target('b')), clock.now + WINDOW_MS, 'asked again at once: a window later');
  clock.now += 4_000;
  t.equal(lookups.join('b', target('b')), clock.now + 4_000, 'the query out for 4 s: asked again in 4 s, not in a window');
  clock.now += 6_000;
  t.equal(lookups.join('b', target('b')), clock.now + 10_000, 'out for 10 s: in 10 s');

  answer({ data: { r0: { deployments: { pageInfo: { hasNextPage: false }, nodes: [] } } } });
  for (let i = 0; i < 200 && lookups.state().answered === 0; i++) await new Promise((r) => setTimeout(r, 2));
  t.match(lookups.take('b'), { kind: 'none', at: clock.now }, 'answered: nothing there, the create follows');
  t.match(lookups.state(), { queries: 1, asked: 1, answered: 1, failed: 0, waiting: 0 });
});
