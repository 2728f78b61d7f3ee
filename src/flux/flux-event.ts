import { isRecord } from '../common/json.js';
import type { FluxKind } from './k8s-objects.js';

/** A Flux notification-controller event as POSTed by a generic / generic-hmac Provider. */
export interface FluxEvent {
  involvedObject: { kind: string; name: string; namespace: string; apiVersion?: string; uid?: string };
  severity: string;
  reason: string;
  message: string;
  timestamp: string;
  metadata?: Record<string, string>;
  reportingController?: string;
}

/** Longest string accepted in any event field: Flux messages are short; this bounds what we keep. */
export const MAX_FIELD_CHARS = 32 * 1024;

export type EventParse = { ok: true; event: FluxEvent } | { ok: false; error: string };

/**
 * What the API server accepts as an object's identity: a kind (an UpperCamelCase identifier), a name
 * (DNS-1123 subdomain, at most 253 characters), a namespace (DNS-1123 label, at most 63). Anything else
 * names no object the bridge could read, and would sit in the queue retrying (an unpaired surrogate is
 * even stored altered by SQLite, so its row would never match its key again).
 */
const IDENTITY: Record<'kind' | 'name' | 'namespace', { re: RegExp; max: number; what: string }> = {
  kind: { re: /^[A-Za-z][A-Za-z0-9]*$/, max: 63, what: 'a Kubernetes kind' },
  name: {
    re: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
    max: 253,
    what: 'a Kubernetes object name (DNS-1123 subdomain)',
  },
  namespace: { re: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, max: 63, what: 'a Kubernetes namespace (DNS-1123 label)' },
};

function requireString(obj: Record<string, unknown>, key: string, path: string, errors: string[], nonEmpty = true): void {
  const v = obj[key];
  if (typeof v !== 'string') errors.push(`${path}${key} must be a string`);
  else if (nonEmpty && v.length === 0) errors.push(`${path}${key} must not be empty`);
  else if (v.length > MAX_FIELD_CHARS) errors.push(`${path}${key} is longer than ${MAX_FIELD_CHARS} characters`);
}

/** Validates a parsed JSON value against the Flux event schema; lists every problem found. */
export function parseFluxEvent(value: unknown): EventParse {
  if (!isRecord(value)) return { ok: false, error: 'event must be a JSON object' };
  const errors: string[] = [];
  const io = value.involvedObject;
  if (!isRecord(io)) errors.push('involvedObject must be an object');
  else for (const k of ['kind', 'name', 'namespace']) requireString(io, k, 'involvedObject.', errors);
  if (isRecord(io)) {
    for (const [k, rule] of Object.entries(IDENTITY)) {
      const v = io[k];
      if (typeof v === 'string' && v.length > 0 && (v.length > rule.max || !rule.re.test(v)))
        errors.push(`involvedObject.${k} is not ${rule.what}`);
    }
  }
  for (const k of ['severity', 'reason', 'timestamp']) requireString(value, k, '', errors);
  requireString(value, 'message', '', errors, false);
  if (typeof value.timestamp === 'string' && Number.isNaN(Date.parse(value.timestamp))) {
    errors.push('timestamp must be an RFC 3339 date-time');
  }
  if (value.metadata !== undefined) {
    if (!isRecord(value.metadata)) errors.push('metadata must be an object');
    else
      for (const [k, v] of Object.entries(value.metadata)) {
        if (typeof v !== 'string') errors.push(`metadata.${k} must be a string`);
        else if (v.length > MAX_FIELD_CHARS) errors.push(`metadata.${k} is longer than ${MAX_FIELD_CHARS} characters`);
      }
  }
  if (errors.length > 0) return { ok: false, error: errors.join('; ') };
  // The checks above are the schema; TypeScript cannot follow them through the loops over field names.
  return { ok: true, event: value as unknown as FluxEvent };
}

/** The Flux kinds the bridge acts on; any other involvedObject kind is accepted and ignored. */
export function reportableKind(kind: string): FluxKind | undefined {
  return kind === 'Kustomization' || kind === 'HelmRelease' ? kind : undefined;
}
