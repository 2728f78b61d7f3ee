/**
 * Forgejo's swagger (2.0) for the commit-status operations (test/fixtures), compiled with ajv so the
 * simulator checks every request and its own answers against Forgejo's own description. Two things
 * are added, both from Forgejo's Go sources: the five states (`x-commit-status-states`; the swagger's
 * `CommitStatusState` has no enum), and strictness: Forgejo silently ignores a body property or query
 * parameter it does not define (`status` instead of `state`, GitHub's `per_page`), so here it is a violation.
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { fixturePath } from '../../fixtures/locate.js';
import { openApiAjv } from '../github-sim/spec.js';

const FIXTURE_FILE = 'forgejo-openapi-statuses.json';
const SCHEMA_ID = 'forgejo-swagger.json';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'body' | 'header';
  type?: string;
  enum?: string[];
  schema?: { $ref: string };
}

interface Operation {
  operationId: string;
  parameters?: Parameter[];
  responses: Record<string, { $ref?: string; schema?: unknown }>;
}

/** The parts of the swagger file the simulator reads. */
export interface ForgejoSwagger {
  basePath: string;
  paths: Record<string, Record<string, Operation>>;
  definitions: Record<string, Record<string, unknown>>;
  'x-commit-status-states': { values: string[] };
}

/** The operations the simulator serves, by Forgejo's operationId. */
export type OperationId =
  | 'repoCreateStatus'
  | 'repoListStatuses'
  | 'repoListStatusesByRef'
  | 'repoGetCombinedStatusByRef'
  | 'repoGet'
  | 'getVersion'
  | 'userGetCurrent'
  | 'repoGetSingleCommit';

export function loadSwagger(path: string = fixturePath(FIXTURE_FILE)): ForgejoSwagger {
  return JSON.parse(readFileSync(path, 'utf8')) as ForgejoSwagger;
}

/** Compiled checks; each returns the problems found ([] when valid). */
export interface SwaggerValidators {
  swagger: ForgejoSwagger;
  states: readonly string[];
  body(op: OperationId, body: unknown): string[];
  query(op: OperationId, query: Record<string, string>): string[];
  response(op: OperationId, status: number, body: unknown): string[];
}

function describe(errors: ErrorObject[]): string[] {
  return errors.map((e) => {
    const where = e.instancePath === '' ? 'body' : e.instancePath.slice(1).replace(/\//g, '.');
    if (e.keyword === 'additionalProperties') return `${where}: "${String(e.params.additionalProperty)}" is not defined by Forgejo`;
    if (e.keyword === 'enum') return `${where} must be one of ${(e.params.allowedValues as string[]).join(', ')}`;
    return `${where} ${e.message ?? 'is invalid'}`;
  });
}

export function compileSwagger(swagger: ForgejoSwagger): SwaggerValidators {
  const states = swagger['x-commit-status-states'].values;
  const patched = structuredClone(swagger);
  patched.definitions.CommitStatusState = { ...patched.definitions.CommitStatusState, enum: states };
  const ajv = openApiAjv();
  ajv.addFormat('email', (s: string) => /^[^\s@]+@[^\s@]+$/.test(s));
  ajv.addSchema({ ...patched, $id: SCHEMA_ID });
  const coercing = openApiAjv({ coerceTypes: true });
  const operations = new Map<OperationId, Operation>();
  for (const byMethod of Object.values(swagger.paths))
    for (const op of Object.values(byMethod)) operations.set(op.operationId as OperationId, op);
  const operation = (id: OperationId): Operation => {
    const op = operations.get(id);
    if (op === undefined) throw new Error(`the swagger fixture has no operation ${id}`);
    return op;
  };
  const cache = new Map<string, ValidateFunction | null>();
  const compiled = (key: string, make: () => ValidateFunction | null) => {
    if (!cache.has(key)) cache.set(key, make());
    return cache.get(key) ?? null;
  };
  const run = (v: ValidateFunction | null, data: unknown) => (v === null || v(data) ? [] : describe(v.errors ?? []));
  const ref = (pointer: string) => `${SCHEMA_ID}${pointer}`;
  return {
    swagger,
    states,
    body: (id, body) =>
      run(
        compiled(`body ${id}`, () => {
          const param = operation(id).parameters?.find((p) => p.in === 'body');
          if (param?.schema === undefined) return null;
          const name = param.schema.$ref.replace('#/definitions/', '');
          // The definition itself, closed: properties refer back into the swagger for their types.
          const props = patched.definitions[name]?.properties as Record<string, { $ref?: string }>;
          const properties = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, s.$ref ? { $ref: ref(s.$ref) } : s]));
          return ajv.compile({ type: 'object', properties, additionalProperties: false });
        }),
        body,
      ),
    query: (id, query) =>
      run(
        compiled(`query ${id}`, () => {
          const params = (operation(id).parameters ?? []).filter((p) => p.in === 'query');
          const properties = Object.fromEntries(params.map((p) => [p.name, { type: p.type, ...(p.enum ? { enum: p.enum } : {}) }]));
          return coercing.compile({ type: 'object', properties, additionalProperties: false });
        }),
        { ...query },
      ),
    response: (id, status, body) =>
      run(
        compiled(`response ${id} ${status}`, () => {
          const answer = operation(id).responses[String(status)];
          if (answer?.$ref === undefined) return null;
          return ajv.compile({ $ref: ref(`${answer.$ref}/schema`) });
        }),
        body,
      ),
  };
}
