/**
 * What a shared secret must be to be accepted (WEBHOOK_TOKEN, a per-namespace key, STATE_TOKEN).
 *
 * 32 bytes: whoever sees one signed Flux event (a captured request, a log of bodies and headers) can test guesses
 * of the HMAC key offline, as fast as their hardware hashes, and STATE_TOKEN is as exposed to guessing over the
 * network. 32 bytes is what `openssl rand -hex 16` (128 random bits) or `openssl rand -base64 24` print, the
 * smallest common random strings that leave offline guessing hopeless; it is also SHA-256's block half, so the
 * key is not padded from a few characters. A passphrase of that length is accepted too: the length is what can be
 * checked, not the randomness.
 */
export const MIN_SECRET_BYTES = 32;

/** The placeholder values of the shipped examples (`manifests/**\/secret.example.yaml`) all start so. */
const EXAMPLE_PREFIX = 'replace-with-';

/** Why `secret` is not accepted (a phrase after its name), or undefined. Never quotes the secret. */
export function weakSecret(secret: Buffer | string): string | undefined {
  const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  if (bytes.toString('utf8').trim().toLowerCase().startsWith(EXAMPLE_PREFIX))
    return 'is the placeholder of an example manifest (secret.example.yaml): replace it with a random value, e.g. `openssl rand -hex 32`';
  if (bytes.length < MIN_SECRET_BYTES)
    return `is ${bytes.length} bytes long; at least ${MIN_SECRET_BYTES} are required (e.g. \`openssl rand -hex 32\`)`;
  return undefined;
}
