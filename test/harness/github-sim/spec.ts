/**
 * The GitHub OpenAPI description of the deployment endpoints (test/fixtures), compiled
 * with ajv so the simulator rejects exactly what GitHub's schema rejects, in GitHub's words.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { fixturePath } from '../../fixtures/locate.js';

const FIXTURE_FILE = 'github-openapi-deployments.json';

export type EndpointKey =
  | 'POST /repos/{owner}/{repo}/deployments'
  | 'GET /repos/{owner}/{repo}/deployments'
  | 'POST /repos/{owner}/{repo}/deployments/{deployment_id}/statuses'
  | 'GET /repos/{owner}/{repo}/deployments/{deployment_id}/statuses'
  | 'DELETE /repos/{owner}/{repo}/deployments/{deployment_id}';

export interface EndpointSpec {
  operationId: string;
  docs: string;
  requestBody?: Record<string, unknown>;
  queryParams?: Record<string, Record<string, unknown>>;
  responses: Record<string, { description: string; schema?: Record<string, unknown> }>;
}

/** A response body documented outside the OpenAPI description (fixture `bodiesSeenOutsideTheSpec`). */
export interface SeenBody {
  status: number;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
}

export interface DeploymentsFixture {
  endpoints: Record<EndpointKey, EndpointSpec>;
  bodiesSeenOutsideTheSpec: Record<string, unknown>;
}

export function loadFixture(path: string = fixturePath(FIXTURE_FILE)): DeploymentsFixture {
  return JSON.parse(readFileSync(path, 'utf8')) as DeploymentsFixture;
}

/** One of the fixture's bodies seen outside the spec, e.g. `secondaryRateLimit.403`; a deep copy. */
export function seenBody(fixture: DeploymentsFixture, key: string): SeenBody {
  const found = fixture.bodiesSeenOutsideTheSpec[key];
  if (found === undefined || typeof found !== 'object') throw new Error(`fixture has no body ${key}`);
  return structuredClone(found) as SeenBody;
}

/** Ajv for the OpenAPI 3.0 dialect (`nullable` is native to ajv 8) with the formats the spec uses. */
export function openApiAjv(options: { coerceTypes?: boolean } = {}): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true, coerceTypes: options.coerceTypes ?? false });
  // GitHub answers "" for unset target_url/log_url/environment_url although the spec says uri.
  ajv.addFormat('uri', (s: string) => s === '' || URL.canParse(s));
  ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s));
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  return ajv;
}

const RUBY_TYPE: Record<string, string> = {
  object: 'an object',
  array: 'an array',
  string: 'a string',
  boolean: 'a boolean',
  integer: 'an integer',
  number: 'a number',
  null: 'null',
};

function show(value: unknown): string {
  // JSON.stringify(undefined) is undefined, though typed string.
  return value === null || value === undefined ? 'nil' : JSON.stringify(value);
}

function where(e: ErrorObject): string {
  const parts = e.instancePath.split('/').filter(Boolean);
  if (parts.length === 0) return 'body';
  return parts.map((p) => (/^\d+$/.test(p) ? 'items' : `properties/${p}`)).join('/');
}

/** GitHub's wording for schema failures: `"ref" wasn't supplied.`, `For 'properties/task', 5 is not a string.` */
function describeErrors(errors: ErrorObject[], data: unknown): string[] {
  const oneOfAt = new Set(errors.filter((e) => e.keyword === 'oneOf').map((e) => e.instancePath));
  const valueAt = (path: string): unknown =>
    path
      .split('/')
      .filter(Boolean)
      .reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], data);
  return errors
    .filter((e) => !(e.schemaPath.includes('/oneOf/') && oneOfAt.has(e.instancePath)))
    .map((e) => {
      const v = show(valueAt(e.instancePath));
      if (e.keyword === 'required') return `"${String(e.params.missingProperty)}" wasn't supplied.`;
      if (e.keyword === 'type') return `For '${where(e)}', ${v} is not ${RUBY_TYPE[String(e.params.type)] ?? String(e.params.type)}.`;
      if (e.keyword === 'enum') return `For '${where(e)}', ${v} is not a member of ${JSON.stringify(e.params.allowedValues)}.`;
      if (e.keyword === 'oneOf') return `For '${where(e)}', ${v} is not any of the allowed types.`;
      return `For '${where(e)}', ${v} ${e.message ?? 'is invalid'}.`;
    });
}

/** Compiled request, query and response validators; each returns GitHub-worded problems, [] when valid. */
export interface SpecValidators {
  fixture: DeploymentsFixture;
  body(endpoint: EndpointKey, body: unknown): string[];
  query(endpoint: EndpointKey, query: Record<string, string>): string[];
  response(endpoint: EndpointKey, status: number, body: unknown): string[];
  docs(endpoint: EndpointKey): string;
}

export function compileSpec(fixture: DeploymentsFixture): SpecValidators {
  const ajv = openApiAjv();
  const coercing = openApiAjv({ coerceTypes: true });
  const cache = new Map<string, ValidateFunction | null>();
  const compiled = (key: string, make: () => ValidateFunction | null): ValidateFunction | null => {
    if (!cache.has(key)) cache.set(key, make());
    return cache.get(key) ?? null;
  };
  const run = (validate: ValidateFunction | null, data: unknown): string[] =>
    validate === null || validate(data) ? [] : describeErrors(validate.errors ?? [], data);
  const spec = (endpoint: EndpointKey): EndpointSpec => fixture.endpoints[endpoint];
  return {
    fixture,
    body: (endpoint, body) =>
      run(
        compiled(`body ${endpoint}`, () => {
          const schema = spec(endpoint).requestBody;
          return schema === undefined ? null : ajv.compile(schema);
        }),
        body,
      ),
    query: (endpoint, query) =>
      run(
        compiled(`query ${endpoint}`, () => {
          const params = spec(endpoint).queryParams;
          return params === undefined ? null : coercing.compile({ type: 'object', properties: params });
        }),
        { ...query },
      ),
    response: (endpoint, status, body) =>
      run(
        compiled(`response ${endpoint} ${status}`, () => {
          const schema = spec(endpoint).responses[String(status)]?.schema;
          return schema === undefined ? null : ajv.compile(schema);
        }),
        body,
      ),
    docs: (endpoint) => spec(endpoint).docs,
  };
}
