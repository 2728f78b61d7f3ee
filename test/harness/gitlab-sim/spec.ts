/**
 * GitLab's OpenAPI description of the operations the bridge calls (test/fixtures), compiled with ajv
 * so the simulator checks every request and its own answers against GitLab's own text. Grape, which
 * GitLab's API runs on, refuses a missing, mistyped or out-of-enum parameter with 400 and silently
 * drops one it does not declare: here the first are refusals in Grape's words, the second violations
 * (a client sending `state` where GitLab reads `status` should fail loudly in tests).
 */
import { readFileSync } from 'node:fs';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { fixturePath } from '../../fixtures/locate.js';
import { openApiAjv } from '../github-sim/spec.js';

const FIXTURE_FILE = 'gitlab-openapi-deployments.json';
const SCHEMA_ID = 'gitlab-openapi.json';

/** The operations the simulator serves, by GitLab's operationId. */
export type OperationId =
  | 'getApiV4ProjectsIdDeployments'
  | 'postApiV4ProjectsIdDeployments'
  | 'getApiV4ProjectsIdDeploymentsDeploymentId'
  | 'putApiV4ProjectsIdDeploymentsDeploymentId'
  | 'getApiV4ProjectsIdEnvironments'
  | 'getApiV4ProjectsIdEnvironmentsEnvironmentId'
  | 'putApiV4ProjectsIdEnvironmentsEnvironmentId'
  | 'postApiV4ProjectsIdEnvironmentsEnvironmentIdStop'
  | 'getApiV4ProjectsIdRepositoryCommitsSha'
  | 'getApiV4ProjectsIdRepositoryCommitsShaRefs'
  | 'getApiV4ProjectsIdMergeRequestsNoteableIdNotes'
  | 'postApiV4ProjectsIdMergeRequestsNoteableIdNotes'
  | 'putApiV4ProjectsIdMergeRequestsNoteableIdNotesNoteId'
  | 'getApiV4ProjectsIdMergeRequestsMergeRequestIid'
  | 'getApiV4ProjectsIdRepositoryCommitsShaMergeRequests'
  | 'getApiV4User'
  | 'getApiV4ProjectsId';

interface Parameter {
  name: string;
  in: 'path' | 'query';
  required?: boolean;
  schema: Record<string, unknown>;
}

interface Operation {
  operationId: OperationId;
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: { properties?: Record<string, unknown>; required?: string[] } } } };
  responses: Record<string, { content?: { 'application/json': { schema: unknown } } }>;
}

/** A deployment status event of GitLab's state machine (fixture `x-deployment-status-machine`). */
interface MachineEvent {
  from: string[] | string;
  to: string;
}

/** The parts of the fixture the simulator reads. */
export interface GitLabOpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
  'x-deployment-status-machine': { states: string[]; events: Record<string, MachineEvent> };
  'x-list-operations': { operations: OperationId[] };
  'x-error-bodies': Record<string, unknown>;
}

export function loadOpenApi(path: string = fixturePath(FIXTURE_FILE)): GitLabOpenApi {
  return JSON.parse(readFileSync(path, 'utf8')) as GitLabOpenApi;
}

/** Ruby/Grape type names the generator writes in components, as JSON Schema. */
const GRAPE_TYPES: Record<string, Record<string, unknown>> = {
  DateTime: { type: 'string', format: 'date-time' },
  Time: { type: 'string', format: 'date-time' },
  Boolean: { type: 'boolean' },
  Array: { type: 'array' },
  Float: { type: 'number' },
  Symbol: { type: 'string' },
};

/**
 * A copy of the components with GitLab's type names made JSON Schema, and every entity property
 * nullable: a Grape entity sends `null` for an attribute that is not set (`external_url` of a new
 * environment), which the generated description never says.
 */
function jsonTypes(node: unknown, isProperty = false): unknown {
  if (Array.isArray(node)) return node.map((n) => jsonTypes(n));
  if (node === null || typeof node !== 'object') return node;
  const out = Object.fromEntries(
    Object.entries(node).map(([k, v]) => [
      k,
      k === 'properties' && v !== null && typeof v === 'object'
        ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([name, prop]) => [name, jsonTypes(prop, true)]))
        : jsonTypes(v),
    ]),
  );
  const typed = { ...out, ...(typeof out.type === 'string' ? GRAPE_TYPES[out.type] : {}) };
  if (!isProperty) return typed;
  return typeof typed.$ref === 'string' ? { anyOf: [typed, { type: 'null' }] } : { ...typed, nullable: true };
}

/** A request's problems: those Grape refuses with 400, and those it would silently ignore. */
export interface ParamCheck {
  refused: string[];
  ignored: string[];
}

/** Grape's wording: `environment is missing`, `status does not have a valid value`, `tag is invalid`. */
function describe(errors: ErrorObject[]): ParamCheck {
  const refused: string[] = [];
  const ignored: string[] = [];
  for (const e of errors) {
    const name = e.instancePath.slice(1).replace(/\//g, '.');
    if (e.keyword === 'additionalProperties')
      ignored.push(`${String(e.params.additionalProperty)} is not a parameter GitLab declares (ignored)`);
    else if (e.keyword === 'required') refused.push(`${String(e.params.missingProperty)} is missing`);
    else if (e.keyword === 'enum') refused.push(`${name} does not have a valid value`);
    else refused.push(`${name || 'body'} is invalid`);
  }
  return { refused, ignored };
}

/** Compiled checks over one fixture. */
export interface SpecValidators {
  api: GitLabOpenApi;
  /** Status → the state machine event GitLab fires for it, and the states it may fire from. */
  transitionAllowed(from: string, to: string): { event: string; allowed: boolean };
  body(op: OperationId, body: unknown): ParamCheck;
  query(op: OperationId, query: Record<string, string>): ParamCheck;
  /** The simulator's own answers; [] when valid or when the description gives no schema. */
  response(op: OperationId, status: number, body: unknown): string[];
  /** A body of `x-error-bodies` (a deep copy). */
  errorBody(key: string): unknown;
}

export function compileSpec(api: GitLabOpenApi = loadOpenApi()): SpecValidators {
  const ajv = openApiAjv();
  const coercing = openApiAjv({ coerceTypes: true });
  ajv.addSchema({ components: jsonTypes(api.components), $id: SCHEMA_ID });
  const operations = new Map<OperationId, Operation>();
  for (const byMethod of Object.values(api.paths)) for (const op of Object.values(byMethod)) operations.set(op.operationId, op);
  const operation = (id: OperationId): Operation => {
    const op = operations.get(id);
    if (op === undefined) throw new Error(`the GitLab fixture has no operation ${id}`);
    return op;
  };
  const cache = new Map<string, ValidateFunction | null>();
  const compiled = (key: string, make: () => ValidateFunction | null) => {
    if (!cache.has(key)) cache.set(key, make());
    return cache.get(key) ?? null;
  };
  const closed = (properties: Record<string, unknown>, required: string[] = []) => ({
    type: 'object',
    properties,
    required,
    additionalProperties: false,
  });
  const check = (v: ValidateFunction | null, data: unknown): ParamCheck =>
    v === null || v(data) ? { refused: [], ignored: [] } : describe(v.errors ?? []);
  const lists = new Set(api['x-list-operations'].operations);
  const machine = api['x-deployment-status-machine'];
  const EVENT_OF: Record<string, string> = Object.fromEntries(Object.entries(machine.events).map(([event, e]) => [e.to, event]));
  return {
    api,
    transitionAllowed(from, to) {
      const event = EVENT_OF[to] ?? `to ${to}`;
      const rule = machine.events[event];
      if (rule === undefined) return { event, allowed: false };
      const except = typeof rule.from === 'string' ? /^any except (\w+)$/.exec(rule.from)?.[1] : undefined;
      return { event, allowed: Array.isArray(rule.from) ? rule.from.includes(from) : except !== undefined && from !== except };
    },
    body: (id, body) =>
      check(
        compiled(`body ${id}`, () => {
          const schema = operation(id).requestBody?.content['application/json'].schema;
          return schema === undefined ? null : ajv.compile(closed(schema.properties ?? {}, schema.required));
        }),
        body ?? {},
      ),
    query: (id, query) =>
      check(
        compiled(`query ${id}`, () => {
          const params = (operation(id).parameters ?? []).filter((p) => p.in === 'query');
          return coercing.compile(closed(Object.fromEntries(params.map((p) => [p.name, p.schema]))));
        }),
        { ...query },
      ),
    response: (id, status, body) => {
      const v = compiled(`response ${id} ${status}`, () => {
        const responses = operation(id).responses;
        // Stop is documented 201 and answered 200 (fixture x-origin quirks): the one schema serves both.
        const answer = responses[String(status)] ?? (status === 200 ? responses['201'] : undefined);
        const schema = answer?.content?.['application/json'].schema as { $ref?: string } | undefined;
        if (schema?.$ref === undefined) return null;
        const item = { $ref: `${SCHEMA_ID}${schema.$ref}` };
        return ajv.compile(lists.has(id) ? { type: 'array', items: item } : item);
      });
      return v === null || v(body) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || 'body'} ${e.message ?? 'is invalid'}`);
    },
    errorBody: (key) => {
      const found = api['x-error-bodies'][key];
      if (found === undefined) throw new Error(`the GitLab fixture has no error body ${key}`);
      return structuredClone(found);
    },
  };
}
