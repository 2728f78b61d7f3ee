/** The `Authorization: Bearer` check of `/state` (STATE_TOKEN). */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether `header` carries `token`. Compared as SHA-256 digests, always of the same length, so
 * neither the time taken nor an early exit tells a caller how long the token is.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  return timingSafeEqual(digest(given), digest(token));
}
