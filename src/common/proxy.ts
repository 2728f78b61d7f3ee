/**
 * Outbound proxies: `HTTPS_PROXY`, `HTTP_PROXY` and `NO_PROXY` (lower-case names first) for every forge's
 * client and the registries. With a proxy set, their transport (http-transport.ts) sends through Node's fetch,
 * and undici's EnvHttpProxyAgent, made the global dispatcher, routes it through the proxy (the npm undici sets
 * the global that Node's own fetch reads); Node's fetch ignores the variables by itself. The Kubernetes client has agents of its own and
 * is not affected (a kubeconfig's `proxy-url` is its setting).
 */
import type { Logger } from 'pino';
import { sendThroughProxy } from './http-transport.js';

/** Where requests go: proxy URLs as given (credentials included, for the proxy), or undefined for direct. */
export interface ProxySettings {
  /** For http:// URLs. */
  http: URL | undefined;
  /** For https:// URLs: `HTTPS_PROXY`, else `HTTP_PROXY` (as undici does). */
  https: URL | undefined;
  /** `NO_PROXY` entries: a host (and its subdomains), an IP address, either with `:port`; `*` for all. */
  noProxy: string[];
}

/** Proxy schemes undici connects to (a socks proxy is not offered). */
const PROXY_PROTOCOLS = new Set(['http:', 'https:']);

/** The first non-empty of the lower-case and the upper-case variable, as undici and curl read them. */
function variable(env: NodeJS.ProcessEnv, name: string): { name: string; value: string } | undefined {
  for (const n of [name.toLowerCase(), name]) {
    const value = env[n]?.trim();
    if (value) return { name: n, value };
  }
  return undefined;
}

/** A proxy URL; `proxy.corp:3128` means `http://proxy.corp:3128` (as curl reads it). Throws naming the variable, never the credentials. */
export function parseProxyUrl(name: string, raw: string): URL {
  const hostPart = raw.slice(raw.lastIndexOf('@') + 1);
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`);
  } catch {
    throw new Error(`${name}: '${hostPart}' is not a proxy URL (http://host:port)`);
  }
  if (!PROXY_PROTOCOLS.has(url.protocol) || !url.hostname)
    throw new Error(`${name}: '${hostPart}' is not an http:// or https:// proxy URL`);
  return url;
}

/** The `NO_PROXY` list: entries separated by commas or blanks. */
export function parseNoProxy(raw: string | undefined): string[] {
  return (raw ?? '').split(/[,\s]+/).filter(Boolean);
}

/** Reads the proxy variables; undefined when no proxy is set (or `NO_PROXY=*`): requests stay direct. */
export function proxySettings(env: NodeJS.ProcessEnv): ProxySettings | undefined {
  const noProxy = parseNoProxy(variable(env, 'NO_PROXY')?.value);
  const httpVar = variable(env, 'HTTP_PROXY');
  const httpsVar = variable(env, 'HTTPS_PROXY') ?? httpVar;
  if ((!httpVar && !httpsVar) || noProxy.includes('*')) return undefined;
  return {
    http: httpVar && parseProxyUrl(httpVar.name, httpVar.value),
    https: httpsVar && parseProxyUrl(httpsVar.name, httpsVar.value),
    noProxy,
  };
}

/** A proxy URL fit for a log: scheme, host and port; user and password stripped. */
export function redactProxyUrl(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/** NO_PROXY entries that match nothing: address ranges (`10.0.0.0/8`); only names, addresses and `host:port` are compared. */
export function unmatchableNoProxy(noProxy: string[]): string[] {
  return noProxy.filter((e) => e.includes('/'));
}

/** The settings as logged once at start: proxies without credentials, and the NO_PROXY list. */
export function describeProxy(s: ProxySettings): { httpsProxy: string; httpProxy: string; noProxy: string[] } {
  return {
    httpsProxy: s.https ? redactProxyUrl(s.https) : 'direct',
    httpProxy: s.http ? redactProxyUrl(s.http) : 'direct',
    noProxy: s.noProxy,
  };
}

/**
 * Routes Node's fetch through the proxies the environment names, and logs them once. Does nothing (not
 * even load undici, whose import would replace Node's default dispatcher) when no proxy is set. Plain
 * http:// targets are sent to the proxy as absolute-URI requests, https:// ones tunnelled with CONNECT,
 * as curl does, so proxies that allow CONNECT only to port 443 still forward them.
 */
export async function installProxy(env: NodeJS.ProcessEnv, log: Logger): Promise<ProxySettings | undefined> {
  const settings = proxySettings(env);
  if (!settings) return undefined;
  const { EnvHttpProxyAgent, setGlobalDispatcher } = await import('undici');
  sendThroughProxy();
  setGlobalDispatcher(
    new EnvHttpProxyAgent({
      // Explicit values: exactly what is logged, and the environment read once.
      httpProxy: settings.http?.href ?? '',
      httpsProxy: settings.https?.href ?? '',
      noProxy: settings.noProxy.join(','),
      proxyTunnel: false,
    }),
  );
  log.info(describeProxy(settings), 'outbound proxy: forge and registry requests go through it, except NO_PROXY');
  const unmatchable = unmatchableNoProxy(settings.noProxy);
  if (unmatchable.length)
    log.warn({ entries: unmatchable }, 'NO_PROXY entries with a range match nothing: list host names, addresses or host:port');
  return settings;
}
