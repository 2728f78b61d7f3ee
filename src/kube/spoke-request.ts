/**
 * GETs to a spoke's API server with only what its checked kubeconfig holds (spoke-kubeconfig.ts): its CA,
 * its token or client certificate, over one kept keep-alive agent per credentials. Nothing of the bridge's
 * own (its service account token, its kubeconfig, its files) is ever added. The hub's transport
 * (kube-request.ts) is not used: its authenticators may run programs and read files.
 */
import { http, https } from '../common/node-http.js';
import type { KubeGet } from './kube-request.js';
import type { SpokeCredentials } from './spoke-kubeconfig.js';

/** A spoke's transport: its GET, and `close()` to drop its kept connections (credentials replaced). */
export interface SpokeTransport {
  get: KubeGet;
  close(): void;
}

/** The transport of one set of credentials. */
export function spokeTransport(c: SpokeCredentials): SpokeTransport {
  const base = new URL(c.server);
  const plain = base.protocol === 'http:';
  const agent = plain
    ? new http.Agent({ keepAlive: true })
    : new https.Agent({
        keepAlive: true,
        rejectUnauthorized: !c.insecureSkipTlsVerify,
        ...(c.caData ? { ca: c.caData } : {}),
        ...(c.certData && c.keyData ? { cert: c.certData, key: c.keyData } : {}),
        ...(c.tlsServerName ? { servername: c.tlsServerName } : {}),
      });
  const headers: Record<string, string> = { Accept: 'application/json', ...(c.token ? { Authorization: `Bearer ${c.token}` } : {}) };
  return {
    get: (path, query, signal) => {
      const url = new URL(c.server + path);
      for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
      const request = plain ? http.request : https.request;
      return new Promise((resolve, reject) => {
        const req = request(url, { method: 'GET', agent, headers, signal }, resolve);
        req.on('error', reject);
        req.end();
      });
    },
    close: () => agent.destroy(),
  };
}
