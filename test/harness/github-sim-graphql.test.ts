import t, { type Test } from 'tap';
import { startGitHubSimulator, type GitHubSimulator, type GitHubSimulatorOptions } from './github-sim.js';

const TOKEN = 'ghs_test_token';
const SHA = 'a'.repeat(40);

async function setup(t: Test, options: GitHubSimulatorOptions = {}): Promise<GitHubSimulator> {
  const sim = await startGitHubSimulator({ tokens: [TOKEN], ...options });
  t.teardown(() => sim.close());
  return sim;
}

interface Conn {
  totalCount?: number;
  pageInfo: { hasNextPage: boolean };
  nodes: Array<{ databaseId: number; commitOid: string; payload: string; latestStatus: { state: string } | null }>;
}
interface Body {
  data?: { a?: { deployments: Conn } | null; b?: null; rateLimit?: { cost?: number; remaining?: number; limit?: number } };
  errors: Array<{ type?: string; message: string; path?: unknown[] }>;
}

async function post(sim: GitHubSimulator, body: unknown, path = '/graphql'): Promise<{ status: number; body: Body; headers: Headers }> {
  const url = path === '/graphql' ? `${sim.url}/graphql` : new URL(path, sim.url).href;
  const res = await fetch(url, { method: 'POST', headers: { authorization: `token ${TOKEN}` }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Body, headers: res.headers };
}

async function deploy(sim: GitHubSimulator, repo: string, environment: string, state?: string): Promise<number> {
  const r = await fetch(`${sim.url}/repos/acme/${repo}/deployments`, {
    method: 'POST',
    headers: { authorization: `token ${TOKEN}` },
    body: JSON.stringify({ ref: SHA, environment, auto_merge: false, required_contexts: [], payload: { cluster: 'c1' } }),
  });
  const d = (await r.json()) as { id: number };
  if (state)
    await fetch(`${sim.url}/repos/acme/${repo}/deployments/${d.id}/statuses`, {
      method: 'POST',
      headers: { authorization: `token ${TOKEN}` },
      body: JSON.stringify({ state }),
    });
  return d.id;
}

const FIND = `query($o: String!, $n: String!, $e: [String!]) {
  a: repository(owner: $o, name: $n) {
    deployments(environments: $e, first: 2, orderBy: { field: CREATED_AT, direction: DESC }) {
      pageInfo { hasNextPage }
      nodes { databaseId commitOid environment task payload latestStatus { state } }
    }
  }
  rateLimit { cost remaining }
}`;

t.test('deployments of a repository by environment, newest first, a page at a time, with their latest status', async (t) => {
  const sim = await setup(t);
  const first = await deploy(sim, 'web', 'staging', 'success');
  await deploy(sim, 'web', 'production');
  const third = await deploy(sim, 'web', 'staging', 'in_progress');
  const fourth = await deploy(sim, 'web', 'staging');
  const r = await post(sim, { query: FIND, variables: { o: 'acme', n: 'web', e: ['staging'] } });
  t.equal(r.status, 200);
  t.same(r.body.errors, undefined);
  const conn = r.body.data!.a!.deployments;
  t.same(
    conn.nodes.map((n) => [n.databaseId, n.latestStatus?.state ?? null]),
    [
      [fourth, null],
      [third, 'IN_PROGRESS'],
    ],
  );
  t.equal(conn.pageInfo.hasNextPage, true, 'the first staging deployment is on the next page');
  t.same(JSON.parse(conn.nodes[0]!.payload), { cluster: 'c1' });
  t.equal(conn.nodes[0]!.commitOid, SHA);
  t.same(r.body.data?.rateLimit, { cost: 1, remaining: 4999 });
  t.equal(r.headers.get('x-ratelimit-resource'), 'graphql');
  t.ok(first > 0);
  t.same(sim.violations, []);
  t.equal(sim.requests.filter((q) => q.path === '/graphql').length, 1);
});

t.test('validated against GitHub published schema: an unknown field is refused and recorded', async (t) => {
  const sim = await setup(t);
  const r = await post(sim, { query: '{ repository(owner: "acme", name: "web") { deployments(first: 1) { nodes { sha } } } }' });
  t.equal(r.status, 200);
  t.match(r.body.errors[0]!.message, /Cannot query field "sha" on type "Deployment"/);
  t.equal(r.body.data, undefined);
  t.equal(sim.violations.length, 1);
});

t.test('node limits: a connection without first or last, a page over 100, more than 500,000 nodes', async (t) => {
  const sim = await setup(t);
  const none = await post(sim, { query: '{ repository(owner: "acme", name: "web") { deployments { totalCount } } }' });
  t.equal(none.body.errors[0]!.type, 'MISSING_PAGINATION_BOUNDARIES');
  const big = await post(sim, { query: '{ repository(owner: "acme", name: "web") { deployments(first: 101) { totalCount } } }' });
  t.equal(big.body.errors[0]!.type, 'EXCESSIVE_PAGINATION');
  // 100 deployments + 100 × 100 statuses + 100 × 100 × 100 statuses of their deployments: 1,010,100 nodes.
  const nested = `{ repository(owner: "acme", name: "web") { deployments(first: 100) { nodes { statuses(first: 100) {
    nodes { deployment { statuses(first: 100) { nodes { state } } } } } } } } }`;
  const huge = await post(sim, { query: nested });
  t.equal(huge.body.errors[0]!.type, 'MAX_NODE_LIMIT_EXCEEDED');
  t.match(huge.body.errors[0]!.message, /requests up to 1010100 nodes which exceeds the maximum limit of 500000/);
  t.equal(sim.violations.length, 3);
  t.equal(sim.points.spent(), 0, 'refused before running: no points spent');
});

t.test('cost in points: connections needed over 100, at least 1; the hourly budget runs out with RATE_LIMITED', async (t) => {
  const sim = await setup(t, { graphqlPointsPerHour: 3 });
  // 1 + 100 nested connections: 101 requests, 1 point.
  const q = `{ repository(owner: "acme", name: "web") { deployments(first: 100) { nodes { statuses(first: 10) { totalCount } } } } rateLimit { cost } }`;
  const one = await post(sim, { query: q });
  t.equal(one.body.data?.rateLimit?.cost, 1);
  const aliases = Array.from(
    { length: 230 },
    (_, i) => `r${i}: repository(owner: "acme", name: "w${i}") { deployments(first: 1) { totalCount } }`,
  );
  const two = await post(sim, { query: `{ ${aliases.join('\n')} rateLimit { cost remaining } }` });
  t.same(two.body.data?.rateLimit, { cost: 2, remaining: 0 }, '230 connections: 2.3 points, rounded to 2');
  const refused = await post(sim, { query: q });
  t.equal(refused.status, 200);
  t.equal(refused.body.errors[0]!.type, 'RATE_LIMITED');
  t.equal(refused.headers.get('x-ratelimit-remaining'), '0');
  t.equal(sim.points.refused, 1);
  // REST's budget is its own.
  const rest = await fetch(`${sim.url}/repos/acme/web/deployments`, { headers: { authorization: `token ${TOKEN}` } });
  t.equal(rest.status, 200);
});

t.test('a repository that does not exist: null with a NOT_FOUND error at its path, the others answered', async (t) => {
  const sim = await setup(t, { repos: ['acme/web'] });
  const r = await post(sim, {
    query: `{ a: repository(owner: "acme", name: "web") { deployments(first: 1) { totalCount } }
              b: repository(owner: "acme", name: "gone") { deployments(first: 1) { totalCount } } }`,
  });
  t.same(r.body.data, { a: { deployments: { totalCount: 0 } }, b: null });
  t.equal(r.body.errors[0]!.type, 'NOT_FOUND');
  t.same(r.body.errors[0]!.path, ['b']);
});

t.test('GitHub Enterprise Server: GraphQL at /api/graphql beside /api/v3', async (t) => {
  const sim = await setup(t, { pathPrefix: '/api/v3' });
  const r = await post(sim, { query: '{ rateLimit { limit } }' }, '/api/graphql');
  t.same(r.body.data, { rateLimit: { limit: 5000 } });
});
