/** Narrowing for parsed JSON and other untyped input (Kubernetes objects, registry documents, events). */

/** Whether a value is a plain JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
