import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

/** GitHub accepts App JWTs that live at most 10 minutes; ours live 9 (issued a minute in the past). */
export const APP_JWT_LIFETIME_S = 9 * 60;
/** `iat` is set this far in the past against clock drift, as GitHub recommends. */
export const APP_JWT_BACKDATE_S = 60;
/** A cached JWT is replaced this long before it expires. */
const JWT_REUSE_MARGIN_S = 60;

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** Reads a PEM private key (PKCS#1 as GitHub downloads it, or PKCS#8); `\n` escapes from env files are accepted. */
export function parseAppPrivateKey(pem: string): KeyObject {
  const text = pem.includes('\\n') && !pem.includes('\n') ? pem.replace(/\\n/g, '\n') : pem;
  const key = createPrivateKey({ key: text, format: 'pem' });
  if (key.asymmetricKeyType !== 'rsa') throw new Error(`the key is ${key.asymmetricKeyType ?? 'not asymmetric'}, GitHub App keys are RSA`);
  return key;
}

/** An RS256 JWT that authenticates as the GitHub App (`iss` = App id). */
export function signAppJwt(appId: number, key: KeyObject, nowMs: number): { jwt: string; expiresAt: number } {
  const iat = Math.floor(nowMs / 1000) - APP_JWT_BACKDATE_S;
  const exp = iat + APP_JWT_BACKDATE_S + APP_JWT_LIFETIME_S;
  const unsigned = `${b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }))}.${b64url(JSON.stringify({ iat, exp, iss: String(appId) }))}`;
  const signature = sign('sha256', Buffer.from(unsigned), key);
  return { jwt: `${unsigned}.${b64url(signature)}`, expiresAt: exp * 1000 };
}

/** The App's JWT, signed again shortly before it expires. */
export class AppJwt {
  private current: { jwt: string; expiresAt: number } | undefined;
  constructor(
    private readonly appId: number,
    private readonly key: KeyObject,
    private readonly now: () => number,
  ) {}

  get(): string {
    const now = this.now();
    if (this.current === undefined || this.current.expiresAt - JWT_REUSE_MARGIN_S * 1000 <= now) {
      this.current = signAppJwt(this.appId, this.key, now);
    }
    return this.current.jwt;
  }

  /** After a 401: sign a new one next time. */
  invalidate(): void {
    this.current = undefined;
  }
}
