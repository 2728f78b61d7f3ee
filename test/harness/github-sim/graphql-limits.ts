/**
 * GitHub GraphQL's resource limits, as "Rate limits and node limits for the GraphQL API" documents them:
 * every connection needs `first` or `last` within 1–100, a call may ask for at most 500,000 nodes, and it
 * costs the requests its connections need (each connection once per parent node it hangs under, all at
 * their page size) divided by 100, rounded, at least 1 point, out of 5,000 points an hour per account.
 */
import {
  Kind,
  OperationTypeNode,
  type OperationDefinitionNode,
  getNamedType,
  isObjectType,
  isInterfaceType,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type GraphQLNamedType,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

export const MAX_NODES = 500_000;
export const MAX_PAGE = 100;
const HOUR_MS = 3_600_000;

/** An error in GitHub's GraphQL shape: `type` at the top, as GitHub sends it. */
export interface GitHubGraphQLError {
  type?: string;
  message: string;
  path?: Array<string | number>;
  locations?: Array<{ line: number; column: number }>;
}

/** What a query costs, or the limits it breaks. */
export type Costing = { ok: true; nodes: number; cost: number } | { ok: false; errors: GitHubGraphQLError[] };

/** The node count and point cost of the document's operation, or why GitHub refuses it before running it. */
export function costOf(schema: GraphQLSchema, doc: DocumentNode, variables: Record<string, unknown>): Costing {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const root = op === undefined ? null : op.operation === OperationTypeNode.QUERY ? schema.getQueryType() : schema.getMutationType();
  if (op === undefined || !root) return { ok: false, errors: [{ message: 'No operation to run' }] };
  const errors: GitHubGraphQLError[] = [];
  let nodes = 0;
  let requests = 0;
  const intOf = (v: ValueNode | undefined): number | undefined => {
    if (v === undefined) return undefined;
    if (v.kind === Kind.INT) return Number(v.value);
    if (v.kind === Kind.VARIABLE) {
      const x = variables[v.name.value];
      return typeof x === 'number' ? x : undefined;
    }
    return undefined;
  };
  const walk = (set: SelectionSetNode, type: GraphQLNamedType, parents: number): void => {
    for (const s of set.selections) {
      if (s.kind === Kind.FRAGMENT_SPREAD) {
        const f = fragments.get(s.name.value);
        if (f) walk(f.selectionSet, schema.getType(f.typeCondition.name.value) ?? type, parents);
        continue;
      }
      if (s.kind === Kind.INLINE_FRAGMENT) {
        walk(s.selectionSet, s.typeCondition ? (schema.getType(s.typeCondition.name.value) ?? type) : type, parents);
        continue;
      }
      if (!isObjectType(type) && !isInterfaceType(type)) continue;
      const field = type.getFields()[s.name.value];
      if (!field || !s.selectionSet) continue;
      const named = getNamedType(field.type);
      let below = parents;
      if (named.name.endsWith('Connection')) {
        const arg = (n: string) => intOf(s.arguments?.find((a) => a.name.value === n)?.value);
        const page = arg('first') ?? arg('last');
        if (page === undefined)
          errors.push({
            type: 'MISSING_PAGINATION_BOUNDARIES',
            message: `You must provide a \`first\` or \`last\` value to properly paginate the \`${s.name.value}\` connection.`,
          });
        else if (page < 1 || page > MAX_PAGE)
          errors.push({
            type: 'EXCESSIVE_PAGINATION',
            message: `Requesting ${page} records on the \`${s.name.value}\` connection exceeds the \`${arg('first') !== undefined ? 'first' : 'last'}\` limit of ${MAX_PAGE} records.`,
          });
        const n = Math.max(1, Math.min(page ?? 1, MAX_PAGE));
        requests += parents;
        below = parents * n;
        nodes += below;
      }
      walk(s.selectionSet, named, below);
    }
  };
  walk(op.selectionSet, root, 1);
  if (errors.length > 0) return { ok: false, errors };
  if (nodes > MAX_NODES)
    return {
      ok: false,
      errors: [
        {
          type: 'MAX_NODE_LIMIT_EXCEEDED',
          message: `This query requests up to ${nodes} nodes which exceeds the maximum limit of ${MAX_NODES}.`,
        },
      ],
    };
  return { ok: true, nodes, cost: Math.max(1, Math.round(requests / 100)) };
}

/** Points an hour per account (a token, an installation), from each account's first query. */
export class PointBudget {
  private readonly accounts = new Map<string, { used: number; resetAt: number }>();
  /** Queries refused for their points. */
  refused = 0;

  constructor(readonly limit: number) {}

  /** Spends `cost` points of `account`: false (nothing spent) when fewer remain. */
  take(account: string, cost: number): boolean {
    const a = this.of(account);
    if (a.used + cost > this.limit) {
      this.refused += 1;
      return false;
    }
    a.used += cost;
    return true;
  }

  /** `rateLimit { … }` of the account, after this query's cost. */
  view(account: string, cost: number, nodeCount: number): Record<string, unknown> {
    const a = this.of(account);
    return { cost, limit: this.limit, nodeCount, remaining: this.limit - a.used, used: a.used, resetAt: new Date(a.resetAt).toISOString() };
  }

  /** GitHub's x-ratelimit-* headers for the `graphql` resource. */
  headers(account: string): Record<string, string> {
    const a = this.of(account);
    return {
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(Math.max(0, this.limit - a.used)),
      'x-ratelimit-used': String(a.used),
      'x-ratelimit-reset': String(Math.ceil(a.resetAt / 1000)),
      'x-ratelimit-resource': 'graphql',
    };
  }

  /** Points spent by every account together. */
  spent(): number {
    return [...this.accounts.values()].reduce((n, a) => n + a.used, 0);
  }

  reset(): void {
    this.accounts.clear();
    this.refused = 0;
  }

  private of(account: string): { used: number; resetAt: number } {
    let a = this.accounts.get(account);
    if (a === undefined || Date.now() >= a.resetAt) {
      a = { used: 0, resetAt: Date.now() + HOUR_MS };
      this.accounts.set(account, a);
    }
    return a;
  }
}
