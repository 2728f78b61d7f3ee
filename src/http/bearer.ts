/** The token checks of `/state` (`Authorization: Bearer`) and of the status page (Bearer, or HTTP Basic for a browser). */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether `given` is `token`. Compared as SHA-256 digests, always of the same length, so neither the time taken
 * nor an early exit tells a caller how long the token is.
 */
const sameSecret = (given: string, token: string): boolean => timingSafeEqual(digest(given), digest(token));

/** Whether `header` carries `token` as `Authorization: Bearer <token>`. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer (.+)$/i.exec(header ?? '')?.[1] ?? '';
  return sameSecret(given, token);
}

/**
 * Whether `header` carries `token` as the password of `Authorization: Basic` (any user name): what a browser sends
 * after its sign-in dialog. The user name is not checked; the token is the only secret, as with Bearer.
 */
export function basicMatches(header: string | undefined, token: string): boolean {
  const encoded = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '')?.[1];
  const decoded = encoded === undefined ? '' : Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return sameSecret(colon < 0 ? '' : decoded.slice(colon + 1), token) && colon >= 0;
}
