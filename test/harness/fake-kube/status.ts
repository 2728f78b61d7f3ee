/** metav1.Status bodies exactly as kube-apiserver writes them for failures. */
import { qualifiedResource } from './resources.js';

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Failure';
  message: string;
  reason: string;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number };
  code: number;
}

function status(code: number, reason: string, message: string, details?: Status['details']): Status {
  // Key order follows the real server's JSON: ..., reason, details, code.
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details ? { details } : {}),
    code,
  };
}

/** Status details name the group only when it is not the core group (the server omits empty fields). */
function detailsOf(group: string, plural: string, name?: string): NonNullable<Status['details']> {
  return { ...(name ? { name } : {}), ...(group ? { group } : {}), kind: plural };
}

/** 404 for a named object that does not exist. */
export function notFound(group: string, plural: string, name: string): Status {
  return status(404, 'NotFound', `${qualifiedResource({ group, plural })} "${name}" not found`, detailsOf(group, plural, name));
}

/** 404 for a path that names no resource type. */
export function noSuchResource(): Status {
  return status(404, 'NotFound', 'the server could not find the requested resource', {});
}

export function unauthorized(): Status {
  return status(401, 'Unauthorized', 'Unauthorized');
}

/** 403 worded like the RBAC authorizer. */
export function forbidden(args: { user: string; verb: string; group: string; plural: string; name?: string; namespace?: string }): Status {
  const res = qualifiedResource(args);
  const subject = args.name ? `${res} "${args.name}"` : res;
  const scope = args.namespace ? `in the namespace "${args.namespace}"` : 'at the cluster scope';
  const message =
    `${subject} is forbidden: User "${args.user}" cannot ${args.verb} resource "${args.plural}" ` + `in API group "${args.group}" ${scope}`;
  return status(403, 'Forbidden', message, detailsOf(args.group, args.plural, args.name));
}

export function methodNotAllowed(): Status {
  return status(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

export function badRequest(message: string): Status {
  return status(400, 'BadRequest', message);
}

const REASONS: Record<number, [string, string]> = {
  408: ['Timeout', 'request did not complete within requested timeout'],
  429: ['TooManyRequests', 'Too many requests, please try again later.'],
  500: ['InternalError', 'Internal error occurred: injected fault'],
  502: ['InternalError', 'Internal error occurred: bad gateway'],
  503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
  504: ['Timeout', 'the server was unable to return a response in the time allotted'],
};

/** A Status for an injected fault with any code. */
export function faultStatus(code: number): Status {
  const [reason, message] = REASONS[code] ?? ['InternalError', `injected fault with status ${code}`];
  return status(code, reason, message, code === 429 ? { retryAfterSeconds: 1 } : undefined);
}

/** 410 for a watch from a resourceVersion the server no longer keeps (sent as an ERROR watch event). */
export function expired(requested: number, current: number): Status {
  return status(410, 'Expired', `too old resource version: ${requested} (${current})`);
}
