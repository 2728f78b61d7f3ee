import { createPrivateKey, type KeyObject } from 'node:crypto';

/**
 * Reads the GitHub App's private key, which signs its JWTs (PKCS#1 as GitHub downloads it, or PKCS#8;
 * `\n` escapes from env files are accepted). Configuration calls it to refuse a bad key at start.
 */
export function parseAppPrivateKey(pem: string): KeyObject {
  const text = pem.includes('\\n') && !pem.includes('\n') ? pem.replace(/\\n/g, '\n') : pem;
  const key = createPrivateKey({ key: text, format: 'pem' });
  if (key.asymmetricKeyType !== 'rsa') throw new Error(`the key is ${key.asymmetricKeyType ?? 'not asymmetric'}, GitHub App keys are RSA`);
  return key;
}
