import type { Agent } from 'node:http';
import type { Agent as TlsAgent } from 'node:https';
import { http, https } from '../common/node-http.js';

/** The options of an https.Agent that decide whether two agents may share connections. */
const TLS_OPTIONS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername'] as const;

function sameOption(a: unknown, b: unknown): boolean {
  if (Buffer.isBuffer(a) && Buffer.isBuffer(b)) return a.equals(b);
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameOption(x, b[i]));
  return a === b;
}

/**
 * Keeps connections to the API server open from one request to the next. The credentials
 * (kube-credentials.ts, like client-node's applyToHTTPSOptions) come with a new http(s).Agent for every
 * request, which alone would open a new TCP connection and, against a real API server, do a new TLS
 * handshake each time. The returned function trades such a fresh agent for a kept
 * keep-alive agent with the same TLS settings; when they change (a rotated client certificate) a new one
 * is kept and the old one destroyed after `drainMs` (the request timeout), so its requests may finish.
 * Any other agent (a proxy's) is returned as it is.
 */
export function keepAliveAgents(drainMs: number): (fresh: Agent) => Agent {
  let plain: Agent | undefined;
  let tls: TlsAgent | undefined;
  return (fresh) => {
    if (fresh.constructor === http.Agent) return (plain ??= new http.Agent({ keepAlive: true }));
    if (!(fresh instanceof https.Agent) || fresh.constructor !== https.Agent) return fresh;
    const options = fresh.options;
    if (tls === undefined || !TLS_OPTIONS.every((k) => sameOption(tls?.options[k], options[k]))) {
      const old = tls;
      if (old !== undefined) setTimeout(() => old.destroy(), drainMs).unref();
      tls = new https.Agent({ ...options, keepAlive: true });
    }
    return tls;
  };
}
