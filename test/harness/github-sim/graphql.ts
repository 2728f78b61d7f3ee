/**
 * GitHub's GraphQL endpoint (`POST /graphql`), for what the bridge asks of it: every query is parsed and
 * validated against GitHub's own published schema (the npm package `@octokit/graphql-schema`) by `graphql`,
 * the reference implementation, held to GitHub's node limits and point budget (graphql-limits.ts), then run
 * with resolvers over the simulator's deployments: `repository(owner, name) { deployments(environments,
 * first/last, after, orderBy) }`, `Deployment`'s fields and `rateLimit`. A field the resolvers do not serve
 * answers null (a non-null one an error): the simulator serves what the bridge uses.
 */
import { schema as published } from '@octokit/graphql-schema';
import {
  GraphQLError,
  buildClientSchema,
  executeSync,
  parse,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type IntrospectionQuery,
} from 'graphql';
import { costOf, type GitHubGraphQLError, type PointBudget } from './graphql-limits.js';
import type { SimDeployment } from './wire-types.js';

let loaded: GraphQLSchema | undefined;
/**
 * GitHub's schema, built once per process from its introspection (`schema.json`; the package's SDL repeats
 * two fields of one type, which the reference implementation refuses to build).
 */
export function githubSchema(): GraphQLSchema {
  loaded ??= buildClientSchema(published.json as unknown as IntrospectionQuery);
  return loaded;
}

export interface GraphQLContext {
  /** The account the points are counted for (a token, an installation). */
  account: string;
  /** Whether the credential may see the repository (exists, installation access). */
  canSee(owner: string, repo: string): boolean;
  deployments(owner: string, repo: string): SimDeployment[];
  points: PointBudget;
  /** A query GitHub would refuse as invalid: the client's fault, recorded. */
  violation(errors: string[], data: unknown): void;
}

export interface GraphQLReply {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

const cursorOf = (i: number) => Buffer.from(`cursor:${i}`).toString('base64');
const indexOf = (cursor: unknown) => (typeof cursor === 'string' ? Number(Buffer.from(cursor, 'base64').toString().slice(7)) : -1);

/** A deployment as GraphQL's `Deployment` type reads it. */
function node(d: SimDeployment): Record<string, unknown> {
  const latest = d.statuses.at(-1);
  const upper = (s: string) => s.toUpperCase();
  return {
    id: d.node_id,
    databaseId: d.id,
    commitOid: d.sha,
    environment: d.environment,
    originalEnvironment: d.original_environment,
    latestEnvironment: d.environment,
    task: d.task,
    // GraphQL's payload is the JSON text of the object.
    payload: JSON.stringify(d.payload),
    description: d.description,
    createdAt: d.created_at,
    updatedAt: d.updated_at,
    state:
      latest === undefined
        ? 'PENDING'
        : latest.state === 'inactive'
          ? 'INACTIVE'
          : latest.state === 'success'
            ? 'ACTIVE'
            : upper(latest.state),
    latestStatus:
      latest === undefined ? null : { state: upper(latest.state), description: latest.description, createdAt: latest.created_at },
  };
}

/** `Repository.deployments` over the repository's deployments (oldest first in the simulator). */
function connection(all: SimDeployment[], args: Record<string, unknown>): Record<string, unknown> {
  const envs = args.environments as string[] | null | undefined;
  const order = args.orderBy as { direction?: string } | undefined;
  let list = envs == null ? all : all.filter((d) => envs.includes(d.environment));
  if (order?.direction === 'DESC') list = [...list].reverse();
  const from = args.after === undefined ? 0 : indexOf(args.after) + 1;
  const to = args.before === undefined ? list.length : indexOf(args.before);
  const window = list.slice(from, Math.max(from, to)).map((d, i) => ({ d, i: from + i }));
  const first = args.first as number | undefined;
  const last = args.last as number | undefined;
  const page = first !== undefined ? window.slice(0, first) : window.slice(Math.max(0, window.length - (last ?? window.length)));
  const nodes = page.map(({ d }) => node(d));
  return {
    totalCount: list.length,
    nodes,
    edges: page.map(({ d, i }) => ({ cursor: cursorOf(i), node: node(d) })),
    pageInfo: {
      hasNextPage: (page.at(-1)?.i ?? from - 1) < Math.max(from, to) - 1,
      hasPreviousPage: (page[0]?.i ?? from) > 0,
      startCursor: page[0] === undefined ? null : cursorOf(page[0].i),
      endCursor: page.at(-1) === undefined ? null : cursorOf(page.at(-1)!.i),
    },
  };
}

/** GitHub's answer to one GraphQL request: 200 with `data` and/or `errors`, and the `graphql` budget's headers. */
export function answerGraphQL(ctx: GraphQLContext, body: unknown): GraphQLReply {
  const schema = githubSchema();
  const { query, variables = {} } = (body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
  const reply = (b: unknown, status = 200) => ({ status, body: b, headers: ctx.points.headers(ctx.account) });
  if (typeof query !== 'string') {
    ctx.violation(['no query'], body);
    return reply({ message: 'A query attribute must be specified and must be a string.' }, 400);
  }
  let doc: DocumentNode;
  try {
    doc = parse(query);
  } catch (err) {
    ctx.violation([(err as Error).message], body);
    return reply({ errors: [{ message: (err as Error).message }] });
  }
  const invalid = validate(schema, doc);
  if (invalid.length > 0) {
    ctx.violation(
      invalid.map((e) => e.message),
      body,
    );
    return reply({ errors: invalid.map(githubError) });
  }
  const costing = costOf(schema, doc, variables);
  if (!costing.ok) {
    ctx.violation(
      costing.errors.map((e) => e.message),
      body,
    );
    return reply({ errors: costing.errors });
  }
  if (!ctx.points.take(ctx.account, costing.cost))
    return reply({ errors: [{ type: 'RATE_LIMITED', message: `API rate limit exceeded for ${ctx.account}.` }] });
  const root = {
    repository: ({ owner, name }: { owner: string; name: string }) => {
      if (!ctx.canSee(owner, name))
        throw Object.assign(new Error(`Could not resolve to a Repository with the name '${owner}/${name}'.`), { type: 'NOT_FOUND' });
      const all = ctx.deployments(owner, name);
      return { name, nameWithOwner: `${owner}/${name}`, deployments: (args: Record<string, unknown>) => connection(all, args) };
    },
    rateLimit: () => ctx.points.view(ctx.account, costing.cost, costing.nodes),
  };
  const result = executeSync({ schema, document: doc, rootValue: root, variableValues: variables });
  return reply({ ...(result.data ? { data: result.data } : {}), ...(result.errors ? { errors: result.errors.map(githubError) } : {}) });
}

/** An error as GitHub words it: its `type` (NOT_FOUND, …) at the top, path and locations as graphql-js has them. */
function githubError(e: GraphQLError): GitHubGraphQLError {
  const type = (e.originalError as { type?: unknown } | undefined)?.type;
  return {
    ...(typeof type === 'string' ? { type } : {}),
    message: e.message,
    ...(e.path ? { path: [...e.path] } : {}),
    ...(e.locations ? { locations: e.locations.map((l) => ({ line: l.line, column: l.column })) } : {}),
  };
}
