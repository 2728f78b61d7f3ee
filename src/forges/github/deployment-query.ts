/**
 * The batched find before creates, as one GraphQL query: many repositories' deployments in the targets'
 * environments (aliased `repository { deployments(environments:, first: 100, orderBy: newest first) }`),
 * and the answer read back per target with the same rules as the REST find (commit, environment, the task
 * when the target names one, the payload's identity). Pure: targets in, query out; data in, answers out.
 */
import type { DeliveryState } from '../../lifecycle/status-plan.js';
import { payloadMatches } from './deployment-payload.js';
import { fromGitHubState } from './github-states.js';

/** What a look-up needs of a target: where it would be created and what identifies it. */
export interface LookupTarget {
  owner: string;
  repo: string;
  environment: string;
  sha: string;
  task?: string | undefined;
  payload: Readonly<Record<string, unknown>>;
}

/** A look-up's answer: the target's deployment and its latest status, or none; a target without one is asked over REST. */
export type LookupAnswer = { kind: 'found'; id: number; state: DeliveryState | null } | { kind: 'none' };

/** GitHub's largest page of a connection (`first` 1–100). */
export const LOOKUP_PAGE = 100;

/** The query and its variables: repository i under alias `r<i>`, with its owner, name and environments as variables. */
export function lookupQuery(targets: readonly LookupTarget[]): { query: string; variables: Record<string, unknown> } {
  const repos = groupByRepo(targets);
  const variables: Record<string, unknown> = {};
  const params: string[] = [];
  const fields: string[] = [];
  repos.forEach((r, i) => {
    variables[`o${i}`] = r.owner;
    variables[`n${i}`] = r.repo;
    variables[`e${i}`] = r.environments;
    params.push(`$o${i}: String!, $n${i}: String!, $e${i}: [String!]`);
    fields.push(`r${i}: repository(owner: $o${i}, name: $n${i}) { deployments(environments: $e${i}, ...page) { ...found } }`);
  });
  const query = [
    `query BridgeFind(${params.join(', ')}) {`,
    ...fields.map((f) => `  ${f}`),
    '  rateLimit { cost remaining resetAt }',
    '}',
    `fragment found on DeploymentConnection { pageInfo { hasNextPage } nodes { databaseId commitOid environment task payload latestStatus { state } } }`,
  ].join('\n');
  // Fragments cannot carry arguments: the page size is written into each field instead.
  return { query: query.replaceAll('...page', `first: ${LOOKUP_PAGE}, orderBy: { field: CREATED_AT, direction: DESC }`), variables };
}

/** Repositories in first-asked order, each with its environments (a repository is one alias, one connection). */
export function groupByRepo(targets: readonly LookupTarget[]): Array<{ owner: string; repo: string; environments: string[] }> {
  const out = new Map<string, { owner: string; repo: string; environments: string[] }>();
  for (const t of targets) {
    const k = repoOf(t);
    const r = out.get(k) ?? { owner: t.owner, repo: t.repo, environments: [] };
    if (!r.environments.includes(t.environment)) r.environments.push(t.environment);
    out.set(k, r);
  }
  return [...out.values()];
}

const repoOf = (t: { owner: string; repo: string }) => `${t.owner}/${t.repo}`.toLowerCase();

interface Node {
  databaseId?: number | null;
  commitOid?: string;
  environment?: string | null;
  task?: string | null;
  payload?: string | null;
  latestStatus?: { state?: string } | null;
}
interface Connection {
  pageInfo?: { hasNextPage?: boolean };
  nodes?: Array<Node | null>;
}

/**
 * Each target's answer from the query's data (`lookupQuery`'s aliases), in `targets` order; undefined where
 * the data cannot say: the repository did not answer (not found, no access, an error), or its page was full
 * and held no match (the deployment may be older than the page).
 */
export function lookupAnswers(targets: readonly LookupTarget[], data: unknown): Array<LookupAnswer | undefined> {
  const index = new Map(groupByRepo(targets).map((r, i) => [repoOf(r), i]));
  const root = (typeof data === 'object' && data !== null ? data : {}) as Record<string, { deployments?: Connection } | null>;
  return targets.map((t) => {
    const conn = root[`r${index.get(repoOf(t))}`]?.deployments;
    if (conn === undefined || !Array.isArray(conn.nodes)) return undefined;
    // Newest first, like the REST list: the first that matches is the one the REST find would adopt.
    const match = conn.nodes.find(
      (n) =>
        n !== null &&
        n.commitOid === t.sha &&
        n.environment === t.environment &&
        (t.task ? n.task === t.task : true) &&
        payloadMatches(n.payload, t),
    );
    if (match?.databaseId != null) return { kind: 'found', id: match.databaseId, state: stateOf(match.latestStatus?.state) };
    if (match !== undefined || conn.pageInfo?.hasNextPage !== false) return undefined;
    return { kind: 'none' };
  });
}

/** GraphQL's status word (`SUCCESS`) in neutral words, as the REST adopt reads it: `pending` (or none) is a state the bridge never sends. */
function stateOf(state: string | undefined): DeliveryState | null {
  const s = state?.toLowerCase();
  return s === undefined || s === 'pending' ? null : fromGitHubState(s);
}
