/**
 * One registry GET (or HEAD) on the bridge's transport (http-transport.ts): timeout combined with the caller's signal, bounded body,
 * redirects followed by hand so `Authorization` never leaves the origin it was meant for, every hop
 * checked against the allowed hosts, and transport failures sorted into RegistryError kinds.
 */
import { BodyTooLarge, readCapped } from '../common/capped-body.js';
import { RegistryError } from '../common/errors.js';
import { transportFetch } from '../common/http-transport.js';
import { hostPatternMatches } from './host-pattern.js';

/** Redirect hops followed before giving up (registries redirect blobs once, to storage). */
const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const TLS_CODES = new Set([
  'EPROTO',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'HOSTNAME_MISMATCH',
]);

/** Per-call transport settings. */
export interface HttpSettings {
  /** Whole-request budget (all redirect hops and the body), in milliseconds. */
  timeoutMs: number;
  /** `host[:port]` values that may be reached over plain HTTP. */
  insecureHosts: ReadonlySet<string>;
  /** `host[:port]` patterns (`*` per label) that may be contacted at all; empty: any host. */
  allowedHosts: readonly string[];
  /** The caller's cancellation; its reason is rethrown as is. */
  signal?: AbortSignal;
  /** Told of every HTTP exchange (each redirect hop): method and status, 0 for a transport failure. */
  onResponse?: (method: string, status: number) => void;
}

/** A buffered response. */
export interface HttpResult {
  /** Where the answer came from (the last redirect hop). */
  url: URL;
  status: number;
  headers: Headers;
  body: Uint8Array;
}

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== null && typeof e === 'object'; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function isTlsCode(code: string): boolean {
  return TLS_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_') || code.includes('CERT');
}

function transportError(err: unknown, url: URL, settings: HttpSettings, timeout: AbortSignal): unknown {
  if (err instanceof RegistryError) return err;
  if (settings.signal?.aborted) return settings.signal.reason;
  if (timeout.aborted) {
    return new RegistryError('timeout', `${url.host} did not answer within ${settings.timeoutMs} ms`, { cause: err });
  }
  const code = errorCode(err);
  if (code !== undefined && isTlsCode(code)) {
    return new RegistryError(
      'tls',
      `TLS to ${url.host} failed (${code}); if it serves plain HTTP, add ${url.host} to REGISTRY_INSECURE_HOSTS`,
      {
        cause: err,
      },
    );
  }
  const detail = code ?? (err instanceof Error ? err.message : String(err));
  return new RegistryError('unavailable', `${url.host} is unreachable (${detail})`, { cause: err });
}

async function readBody(res: Response, maxBytes: number, url: URL): Promise<Uint8Array> {
  try {
    return await readCapped(res, maxBytes);
  } catch (err) {
    if (!(err instanceof BodyTooLarge)) throw err;
    throw new RegistryError(
      'invalid',
      err.declared === undefined
        ? `${url.host} sent more than ${maxBytes} bytes for ${url.pathname}`
        : `${url.host} sent ${err.declared} bytes for ${url.pathname}, more than the ${maxBytes} allowed`,
    );
  }
}

function checkHost(url: URL, settings: HttpSettings): void {
  const host = url.host.toLowerCase();
  if (settings.allowedHosts.length > 0 && !settings.allowedHosts.some((p) => hostPatternMatches(p, host))) {
    throw new RegistryError('not_allowed', `refusing ${host}: not listed in REGISTRY_ALLOWED_HOSTS`);
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && settings.insecureHosts.has(url.host.toLowerCase())) return;
  throw new RegistryError(
    'tls',
    `refusing ${url.protocol}//${url.host}: only HTTPS, or plain HTTP to hosts listed in REGISTRY_INSECURE_HOSTS`,
  );
}

/**
 * GETs (or HEADs) `url`, following redirects; the `authorization` header is dropped as soon as a
 * hop leaves the original origin (blob storage must not see registry credentials), and a hop to a
 * host outside `allowedHosts` is refused before it is made.
 * Statuses are returned, not thrown; transport failures throw RegistryError.
 */
export async function httpGet(
  url: URL,
  headers: Record<string, string>,
  maxBytes: number,
  settings: HttpSettings,
  method: 'GET' | 'HEAD' = 'GET',
): Promise<HttpResult> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = settings.signal ? AbortSignal.any([timeout, settings.signal]) : timeout;
  const origin = url.origin;
  let current = url;
  let sent: Record<string, string> = { ...headers };
  try {
    for (let hop = 0; ; hop++) {
      checkHost(current, settings);
      let res: Response;
      try {
        res = await transportFetch(current, { method, headers: sent, redirect: 'manual', signal });
      } catch (err) {
        settings.onResponse?.(method, 0);
        throw err;
      }
      settings.onResponse?.(method, res.status);
      const location = res.headers.get('location');
      if (!REDIRECT_STATUSES.has(res.status) || location === null) {
        return { url: current, status: res.status, headers: res.headers, body: await readBody(res, maxBytes, current) };
      }
      await res.body?.cancel();
      if (hop >= MAX_REDIRECTS) throw new RegistryError('invalid', `${url.host}: more than ${MAX_REDIRECTS} redirects for ${url.pathname}`);
      current = new URL(location, current);
      if (current.origin !== origin) sent = withoutAuthorization(sent);
    }
  } catch (err) {
    throw transportError(err, current, settings, timeout);
  }
}

function withoutAuthorization(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== 'authorization'));
}
