/**
 * What each request to the API server carries: the cluster's TLS settings (CA, insecure-skip-tls-verify,
 * tls-server-name), the user's client certificate, token, basic auth, impersonation, or the token of an
 * authenticator (exec plugin, token file, and only when a user names them the azure, gcp and oidc providers),
 * and an agent for them (through the cluster's proxy-url if it has one). Same settings as client-node 1.x's
 * `KubeConfig.applyToHTTPSOptions`, with its authenticator classes, without importing its generated API.
 */
import { readFileSync } from 'node:fs';
import type { Agent } from 'node:http';
import type { AgentOptions, RequestOptions } from 'node:https';
import { http, https } from '../common/node-http.js';
import type { Authenticator } from '@kubernetes/client-node/dist/auth.js';
import { ExecAuth } from '@kubernetes/client-node/dist/exec_auth.js';
import { FileAuth } from '@kubernetes/client-node/dist/file_auth.js';
import { currentOf, requireFromClientNode, type Cluster, type KubeEntries, type User } from './kube-config.js';

type AgentClass = new (options: AgentOptions & { proxy: string }) => Agent;
type SocksAgentClass = new (uri: string, options: AgentOptions) => Agent;

/** Which authenticator adds the user's credentials, in client-node's order (azure, gcp, exec, token file, oidc). */
async function authenticatorFor(user: User): Promise<Authenticator | undefined> {
  // Only the provider's name decides azure, gcp and oidc: their modules (and openid-client) load only when named.
  const provider = (user.authProvider as { name?: unknown } | undefined)?.name;
  if (provider === 'azure') return new (await import('@kubernetes/client-node/dist/azure_auth.js')).AzureAuth();
  if (provider === 'gcp') return new (await import('@kubernetes/client-node/dist/gcp_auth.js')).GoogleCloudPlatformAuth();
  const exec = new ExecAuth();
  if (exec.isAuthProvider(user)) return exec;
  const file = new FileAuth();
  if (file.isAuthProvider(user)) return file;
  if (provider === 'oidc') return new (await import('@kubernetes/client-node/dist/oidc_auth.js')).OpenIDConnectAuth();
  return undefined;
}

/** A certificate or key from its file (read each time: it may be renewed) or its inline base64 data. */
function bytes(file: string | undefined, data: string | undefined): Buffer | undefined {
  if (file) return readFileSync(file);
  return data ? Buffer.from(data, 'base64') : undefined;
}

/** The agent for the cluster's scheme and proxy-url; plain http only with insecure-skip-tls-verify. */
function agentFor(cluster: Cluster, options: AgentOptions): Agent {
  const proxy = cluster.proxyUrl;
  if (proxy) {
    if (proxy.startsWith('socks')) {
      const { SocksProxyAgent } = requireFromClientNode('socks-proxy-agent') as { SocksProxyAgent: SocksAgentClass };
      return new SocksProxyAgent(proxy, options);
    }
    const agents = requireFromClientNode('hpagent') as { HttpProxyAgent: AgentClass; HttpsProxyAgent: AgentClass };
    if (cluster.server.startsWith('https')) return new agents.HttpsProxyAgent({ ...options, proxy });
    if (cluster.server.startsWith('http')) return new agents.HttpProxyAgent({ ...options, proxy });
    throw new Error('Unsupported proxy type');
  }
  if (cluster.server.startsWith('http:')) {
    if (!cluster.skipTLSVerify) throw new Error('HTTP protocol is not allowed when skipTLSVerify is not set or false');
    return new http.Agent(options);
  }
  return new https.Agent(options);
}

/** The current context of a kubeconfig, and what its requests carry. */
export class ClusterAccess {
  readonly cluster: Cluster | undefined;
  readonly user: User | undefined;
  /** The user's authenticator, chosen once: exec and token-file authenticators cache their token. */
  private authenticator: Promise<Authenticator | undefined> | undefined;

  constructor(entries: KubeEntries) {
    ({ cluster: this.cluster, user: this.user } = currentOf(entries));
  }

  getCurrentCluster(): Cluster | null {
    return this.cluster ?? null;
  }

  getCurrentUser(): User | null {
    return this.user ?? null;
  }

  /** Sets TLS options, credential headers (`Authorization`, `Impersonate-User`), basic `auth` and a fresh `agent`. */
  async applyToHTTPSOptions(opts: RequestOptions): Promise<void> {
    const { cluster, user } = this;
    if (cluster === undefined) throw new Error('No active cluster!');
    if (cluster.skipTLSVerify) opts.rejectUnauthorized = false;
    if (cluster.tlsServerName) opts.servername = cluster.tlsServerName;
    opts.ca = bytes(cluster.caFile, cluster.caData) ?? opts.ca;
    if (user !== undefined) {
      opts.cert = bytes(user.certFile, user.certData) ?? opts.cert;
      opts.key = bytes(user.keyFile, user.keyData) ?? opts.key;
      const headers = (opts.headers ??= {}) as Record<string, string>;
      if (user.impersonateUser != null) headers['Impersonate-User'] = user.impersonateUser;
      const authenticator = await (this.authenticator ??= authenticatorFor(user));
      await authenticator?.applyAuthentication(user, opts);
      if (user.token) headers.Authorization = `Bearer ${user.token}`;
      if (user.username) opts.auth = `${user.username}:${user.password ?? ''}`;
    }
    const { ca, cert, key, pfx, passphrase, rejectUnauthorized, servername, timeout } = opts;
    opts.agent = agentFor(cluster, {
      ca,
      cert,
      key,
      pfx,
      passphrase,
      servername,
      timeout,
      ...(rejectUnauthorized === undefined ? {} : { rejectUnauthorized }),
    });
  }
}
