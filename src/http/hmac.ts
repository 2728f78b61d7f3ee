import { createHmac, timingSafeEqual } from 'node:crypto';

/** Digest algorithms Flux's generic-hmac Provider may name in `X-Signature: <alg>=<hex>`. */
const ALGORITHMS = new Set(['sha256', 'sha384', 'sha512']);

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * Verifies a Flux `X-Signature` header against the HMAC of the exact raw body bytes.
 * The comparison is constant time; the key is used byte for byte (no trimming).
 */
export function verifySignature(key: Buffer, body: Buffer, header: string | undefined): SignatureCheck {
  if (!header) return { ok: false, reason: 'missing X-Signature header' };
  const eq = header.indexOf('=');
  const alg = eq > 0 ? header.slice(0, eq).trim().toLowerCase() : '';
  const hex = eq > 0 ? header.slice(eq + 1).trim() : '';
  if (!ALGORITHMS.has(alg)) return { ok: false, reason: 'X-Signature must be <sha256|sha384|sha512>=<hex>' };
  if (!/^[0-9a-fA-F]+$/.test(hex)) return { ok: false, reason: 'X-Signature digest is not hex' };
  const expected = createHmac(alg, key).update(body).digest();
  if (hex.length !== expected.length * 2) return { ok: false, reason: 'X-Signature does not match the body' };
  const given = Buffer.from(hex, 'hex');
  if (!timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'X-Signature does not match the body' };
  }
  return { ok: true };
}

/** Signs a body the way Flux does; used by tests, the demo and benchmarks. */
export function signBody(key: Buffer | string, body: Buffer | string, alg = 'sha256'): string {
  return `${alg}=${createHmac(alg, key).update(body).digest('hex')}`;
}
