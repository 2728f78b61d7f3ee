import type { KeyObject } from 'node:crypto';
import { createAppAuth } from '@octokit/auth-app';
import { GitHubCallError, inOperation } from './call-error.js';
import { InstallationResolver, type InstallationCache } from './installation-lookup.js';
import {
  callGitHub,
  createDeploymentsPort,
  createOctokit,
  GITHUB_TIMEOUT_MS,
  type Credentials,
  type GitHubClientOptions,
} from './octokit-factory.js';
import type { DeploymentsPort, RepoRef } from './github-types.js';
import type { Octokit } from '@octokit/core';

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
  client: Omit<GitHubClientOptions, 'credentials' | 'scope' | 'gated' | 'onUnauthorized'>;
  /** GitHub answered 401 to a request (not to the credential check, which handles its own). */
  onUnauthorized: (reason: string) => void;
  installations: InstallationCache;
  now: () => number;
  timeoutMs?: number;
}

/** GitHub App authentication: the deployments port routing each repository to its installation, and the credential check. */
export interface AppSide {
  port: DeploymentsPort;
  /** The client of a repository's installation whose tokens carry `permissions` instead (pull request comments). */
  clientFor(r: RepoRef, permissions: Readonly<Record<string, string>>): Promise<Octokit>;
  /** `GET /app` with the App's JWT; answers a problem that stops the work (missing permission), or undefined. */
  check(): Promise<string | undefined>;
}

/**
 * Builds App auth on `@octokit/auth-app`: it signs a fresh JWT for every App request and mints installation
 * tokens (cached until a minute before they expire, one mint for concurrent requests). The mint goes through
 * the App's own client, so it is paused, counted and timed out like every request. The bridge keeps what
 * auth-app does not do: which installation serves a repository (per owner, cached in SQLite), and a token
 * GitHub answered 401 to is never handed out again from auth-app's cache.
 */
export function createAppSide(o: AppSideOptions): AppSide {
  const timeoutMs = o.timeoutMs ?? GITHUB_TIMEOUT_MS;
  // The App's client asks auth-app for its JWT, and auth-app sends its token mints through that client.
  const jwt: Credentials = { scheme: 'bearer', get: async () => (await appAuth({ type: 'app' })).token };
  const appClient = createOctokit({ ...o.client, onUnauthorized: o.onUnauthorized, credentials: jwt, scope: 'app' });
  // auth-app's mint brings no signal of its own.
  appClient.hook.before('request', (options) => {
    options.request = { ...options.request, signal: options.request.signal ?? AbortSignal.timeout(timeoutMs) };
  });
  const appAuth = createAppAuth({
    appId: o.app.appId,
    privateKey: o.app.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    request: appClient.request,
    log: { warn: (message: string) => o.client.log.warn(message) },
  });
  // The check is never paused (it is what ends a credentials pause) and handles its own 401.
  const checkClient = createOctokit({ ...o.client, credentials: jwt, scope: 'app', gated: false, spaceWrites: false });

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
        timeoutMs,
      );
      return data.id;
    },
  });
  /** Installations whose token GitHub answered 401 to: the next token is minted anew, not taken from auth-app's cache. */
  const rejected = new Set<number>();
  const tokenFor = async (
    installationId: number,
    permissions: Readonly<Record<string, string>> = APP_TOKEN_PERMISSIONS,
  ): Promise<string> => {
    try {
      const refresh = rejected.has(installationId);
      const { token } = await appAuth({ type: 'installation', installationId, permissions: { ...permissions }, refresh });
      rejected.delete(installationId);
      return token;
    } catch (err) {
      if (!(err instanceof GitHubCallError)) throw err;
      if (err.status === 404) resolver.forget(installationId);
      throw inOperation(err, 'installationToken', `create a token for App installation ${installationId}`);
    }
  };
  const ports = new Map<number, DeploymentsPort>();
  const portFor = (installationId: number): DeploymentsPort => {
    let port = ports.get(installationId);
    if (port === undefined) {
      const octokit = createOctokit({
        ...o.client,
        onUnauthorized: o.onUnauthorized,
        scope: `installation ${installationId}`,
        credentials: { scheme: 'token', get: () => tokenFor(installationId), invalidate: () => rejected.add(installationId) },
      });
      port = createDeploymentsPort(octokit, timeoutMs);
      ports.set(installationId, port);
    }
    return port;
  };
  const via = async (r: RepoRef) => portFor(await resolver.installationFor(r));
  const clients = new Map<string, Octokit>();
  let saidContents = false;
  const clientFor = async (r: RepoRef, permissions: Readonly<Record<string, string>>): Promise<Octokit> => {
    const installationId = await resolver.installationFor(r);
    const key = `${installationId} ${JSON.stringify(permissions)}`;
    let octokit = clients.get(key);
    if (octokit === undefined) {
      octokit = createOctokit({
        ...o.client,
        onUnauthorized: o.onUnauthorized,
        scope: `installation ${installationId}`,
        credentials: { scheme: 'token', get: () => tokenFor(installationId, permissions), invalidate: () => rejected.add(installationId) },
      });
      clients.set(key, octokit);
    }
    return octokit;
  };

  return {
    port: {
      listDeployments: async (r, q, turn) => (await via(r)).listDeployments(r, q, turn),
      createDeployment: async (r, body, turn) => (await via(r)).createDeployment(r, body, turn),
      listStatuses: async (r, id, turn) => (await via(r)).listStatuses(r, id, turn),
      createStatus: async (r, id, body, turn) => (await via(r)).createStatus(r, id, body, turn),
      queryDeployments: async (r, request) => {
        const port = await via(r);
        // Every installation's port is createDeploymentsPort's, which has it.
        if (port.queryDeployments === undefined) throw new Error('no GraphQL on this installation port');
        return port.queryDeployments(r, request);
      },
    },
    clientFor,
    async check() {
      const app = await callGitHub<{ slug?: string; permissions?: Record<string, string> }>(
        'credentialCheck',
        'check the GitHub App credentials (GET /app)',
        (signal) => checkClient.request('GET /app', { request: { signal } }),
        timeoutMs,
      );
      const deployments = app.permissions?.deployments;
      if (app.permissions !== undefined && deployments !== 'write') {
        return `GitHub App ${app.slug ?? o.app.appId} has Deployments permission "${deployments ?? 'none'}": give it Deployments read & write`;
      }
      // Optional, so not a problem: said once per process, since only the DORA lead time needs it.
      const contents = app.permissions?.contents;
      if (app.permissions !== undefined && contents !== 'read' && contents !== 'write' && !saidContents) {
        saidContents = true;
        o.client.log.warn(
          { app: app.slug ?? o.app.appId },
          'the GitHub App has no Contents read permission: DORA lead times stay unknown (docs/github-app.md)',
        );
      }
      return undefined;
    },
  };
}
