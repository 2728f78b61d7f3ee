import type { KeyObject } from 'node:crypto';
import type { Octokit } from 'octokit';
import { AppJwt } from './app-jwt.js';
import { GitHubCallError } from './call-error.js';
import { InstallationTokens, type MintedToken } from './installation-tokens.js';
import { InstallationResolver, type InstallationCache } from './installation-lookup.js';
import { callGitHub, createDeploymentsPort, createOctokit, type GitHubClientOptions } from './octokit-factory.js';
import type { DeploymentsPort, RepoRef } from './github-types.js';

/** The only permissions the bridge asks for in its installation tokens (least privilege). */
export const APP_TOKEN_PERMISSIONS = { deployments: 'write', metadata: 'read' } as const;

export interface AppIdentity {
  appId: number;
  privateKey: KeyObject;
  /** `GITHUB_APP_INSTALLATION_ID`: use this installation for every repository. */
  installationId?: number;
}

export interface AppSideOptions {
  app: AppIdentity;
  /** Client settings shared by the App's own client and every installation's. */
  client: Omit<GitHubClientOptions, 'credentials' | 'scope' | 'gated'>;
  installations: InstallationCache;
  now: () => number;
  timeoutMs?: number;
}

/** GitHub App authentication: the deployments port routing each repository to its installation, and the credential check. */
export interface AppSide {
  port: DeploymentsPort;
  /** `GET /app` with the App's JWT; answers a problem that stops the work (missing permission), or undefined. */
  check(): Promise<string | undefined>;
}

/** Builds App auth: JWT for App endpoints, an installation token (minted, refreshed) per installation for repositories. */
export function createAppSide(o: AppSideOptions): AppSide {
  const jwt = new AppJwt(o.app.appId, o.app.privateKey, o.now);
  const jwtCredentials = { scheme: 'bearer' as const, get: async () => jwt.get(), invalidate: () => jwt.invalidate() };
  const appClient = createOctokit({ ...o.client, credentials: jwtCredentials, scope: 'app' });
  // The check is never paused (it is what ends a credentials pause) and handles its own 401.
  const { onUnauthorized: _checked, ...checkOptions } = o.client;
  const checkClient = createOctokit({ ...checkOptions, credentials: jwtCredentials, scope: 'app', gated: false, spaceWrites: false });

  const resolver = new InstallationResolver({
    ...(o.app.installationId !== undefined ? { pinned: o.app.installationId } : {}),
    cache: o.installations,
    now: o.now,
    log: o.client.log,
    lookup: async (r: RepoRef) => {
      const data = await callGitHub<{ id: number }>(
        'installation',
        `find the GitHub App installation for ${r.owner}/${r.repo}`,
        (signal) => appClient.request('GET /repos/{owner}/{repo}/installation', { ...r, request: { signal } }),
        o.timeoutMs,
      );
      return data.id;
    },
  });
  const mint = async (installationId: number): Promise<MintedToken> => {
    try {
      const data = await callGitHub<{ token: string; expires_at: string }>(
        'installationToken',
        `create a token for App installation ${installationId}`,
        (signal) =>
          appClient.request('POST /app/installations/{installation_id}/access_tokens', {
            installation_id: installationId,
            permissions: { ...APP_TOKEN_PERMISSIONS },
            request: { signal },
          }),
        o.timeoutMs,
      );
      return { token: data.token, expiresAt: Date.parse(data.expires_at) };
    } catch (err) {
      if (err instanceof GitHubCallError && err.status === 404) resolver.forget(installationId);
      throw err;
    }
  };
  const tokens = new InstallationTokens(mint, o.now);
  const ports = new Map<number, DeploymentsPort>();
  const portFor = (installationId: number): DeploymentsPort => {
    let port = ports.get(installationId);
    if (port === undefined) {
      const octokit: Octokit = createOctokit({
        ...o.client,
        scope: `installation ${installationId}`,
        credentials: { scheme: 'token', get: () => tokens.get(installationId), invalidate: () => tokens.invalidate(installationId) },
      });
      port = createDeploymentsPort(octokit, o.timeoutMs);
      ports.set(installationId, port);
    }
    return port;
  };
  const via = async (r: RepoRef) => portFor(await resolver.installationFor(r));

  return {
    port: {
      listDeployments: async (r, q) => (await via(r)).listDeployments(r, q),
      createDeployment: async (r, body) => (await via(r)).createDeployment(r, body),
      listStatuses: async (r, id) => (await via(r)).listStatuses(r, id),
      createStatus: async (r, id, body) => (await via(r)).createStatus(r, id, body),
    },
    async check() {
      const app = await callGitHub<{ slug?: string; permissions?: Record<string, string> }>(
        'credentialCheck',
        'check the GitHub App credentials (GET /app)',
        (signal) => checkClient.request('GET /app', { request: { signal } }),
        o.timeoutMs,
      );
      const deployments = app.permissions?.deployments;
      if (app.permissions !== undefined && deployments !== 'write') {
        return `GitHub App ${app.slug ?? o.app.appId} has Deployments permission "${deployments ?? 'none'}": give it Deployments read & write`;
      }
      return undefined;
    },
  };
}
