/** Small pieces shared by the object builders: deterministic uids and hashes, conditions, times. */
import { createHash } from 'node:crypto';
import type { Condition } from '../../src/kube/kube-types.js';

/** RFC 3339 with seconds precision, as the API server writes timestamps. */
export function kubeTime(d = new Date()): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** A stable UUID-shaped uid for kind/namespace/name, so rebuilt objects keep owner references valid. */
export function uidFor(kind: string, namespace: string, name: string): string {
  const h = sha256(`${kind}/${namespace}/${name}`);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** "sha256:<64 hex>" derived from the input: a realistic digest that stays the same across runs. */
export function digestOf(input: string): string {
  return `sha256:${sha256(input)}`;
}

/** 40 hex chars derived from the input: a realistic git commit SHA. */
export function commitOf(input: string): string {
  return sha256(input).slice(0, 40);
}

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** A pod-template-hash-like suffix (10 chars of the alphabet Kubernetes uses for generated names). */
export function templateHash(template: unknown): string {
  const h = createHash('sha256').update(JSON.stringify(template)).digest();
  let out = '';
  for (let i = 0; i < 10; i++) out += SAFE_ALPHABET.charAt(h[i]! % SAFE_ALPHABET.length);
  return out;
}

/** A status condition with lastTransitionTime set. */
export function condition(
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
  observedGeneration?: number,
): Condition {
  return {
    lastTransitionTime: kubeTime(),
    message,
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
    reason,
    status,
    type,
  };
}
