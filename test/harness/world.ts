/**
 * A whole simulated world for end-to-end tests, the demo and benchmarks: the fake Kubernetes API,
 * the GitHub simulator and (optionally) a real docker-registry, plus the bridge's environment.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBridge, type BridgeProcess } from './bridge-process.js';
import { startFakeKube, writeKubeconfig, type FakeKube } from './fake-kube.js';
import { startForgejoSimulator, type ForgejoSimulator, type ForgejoSimulatorOptions } from './forgejo-sim.js';
import { startGitLabSimulator, type GitLabSimulator, type GitLabSimulatorOptions } from './gitlab-sim.js';
import { startGitHubSimulator, type GitHubSimulator, type GitHubSimulatorOptions } from './github-sim.js';
import { startRegistry, type RunningRegistry } from './registry.js';

/** Long enough to be accepted (src/common/secret-strength.ts); the trailing newline is part of it, as a Secret file's would be. */
export const WEBHOOK_KEY = 'flux-hmac-key-of-the-simulated-cluster\n';
export const KUBE_TOKEN = 'bridge-service-account-token';
export const GITHUB_TOKEN = 'ghs_simulatedtoken0000000000000000000';
export const APP_ID = 4242;
export const APP_INSTALLATION_ID = 77;
export const FORGEJO_TOKEN = 'forgejo_simulated_token_0000000000000000';
export const GITLAB_TOKEN = 'glpat-simulated-token-000000';

/** How the bridge authenticates in this world: `GITHUB_TOKEN`, or a GitHub App installed on `acme` (by default). */
export interface WorldAuth {
  app?: boolean | { installations: Array<{ id: number; account: string; repositories?: string[] }> };
}

export interface World {
  dir: string;
  kube: FakeKube;
  github: GitHubSimulator;
  /** The Forgejo simulator, when the world has one (`forgejo` option): `FORGEJO_URL` and `FORGEJO_TOKEN` are set. */
  forgejo: ForgejoSimulator | undefined;
  /** The GitLab simulator, when the world has one (`gitlab` option): `GITLAB_URL` and `GITLAB_TOKEN` are set. */
  gitlab: GitLabSimulator | undefined;
  registry: RunningRegistry | undefined;
  kubeconfig: string;
  /** The bridge environment pointing at this world; override per test. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Starts the real bridge process against this world. */
  bridge(extra?: Record<string, string>): Promise<BridgeProcess>;
  close(): Promise<void>;
}

export interface WorldOptions extends WorldAuth {
  registry?: boolean;
  github?: GitHubSimulatorOptions;
  /** A Forgejo simulator accepting FORGEJO_TOKEN (`true`: with default options). */
  forgejo?: boolean | ForgejoSimulatorOptions;
  /** A GitLab simulator accepting GITLAB_TOKEN as user `deploy-bridge` (`true`: with default options). */
  gitlab?: boolean | GitLabSimulatorOptions;
  /** No GitHub credentials in the environment: a Forgejo-only bridge. */
  githubOff?: boolean;
}

export async function startWorld(o: WorldOptions = {}): Promise<World> {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-world-'));
  const kube = await startFakeKube({ token: KUBE_TOKEN });
  // A GitHub App: a fresh RSA key; the simulator verifies the bridge's JWTs with its public half.
  const appKey = o.app ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : undefined;
  const installations = typeof o.app === 'object' ? o.app.installations : [{ id: APP_INSTALLATION_ID, account: 'acme' }];
  const github = await startGitHubSimulator({
    tokens: [GITHUB_TOKEN],
    ...(appKey ? { app: { id: APP_ID, publicKey: appKey.publicKey, installations } } : {}),
    ...o.github,
  });
  const githubAuth: Record<string, string> = appKey
    ? { GITHUB_APP_ID: String(APP_ID), GITHUB_APP_PRIVATE_KEY: appKey.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString() }
    : { GITHUB_TOKEN };
  const registry = o.registry ? await startRegistry() : undefined;
  const forgejo = o.forgejo
    ? await startForgejoSimulator({ tokens: [FORGEJO_TOKEN], ...(typeof o.forgejo === 'object' ? o.forgejo : {}) })
    : undefined;
  const gitlab = o.gitlab
    ? await startGitLabSimulator({ tokens: { [GITLAB_TOKEN]: 'deploy-bridge' }, ...(typeof o.gitlab === 'object' ? o.gitlab : {}) })
    : undefined;
  const kubeconfig = writeKubeconfig(dir, kube.url, KUBE_TOKEN);
  const bridges: BridgeProcess[] = [];
  const env = (extra: Record<string, string> = {}) => ({
    PORT: '0',
    HOST: '127.0.0.1',
    WEBHOOK_TOKEN: WEBHOOK_KEY,
    // Tests poll /state far faster than a person; the limit itself is tested in test/http/state-limits.test.ts.
    STATUS_RATE_PER_MINUTE: '1000000',
    ...(o.githubOff ? {} : githubAuth),
    ...(forgejo ? { FORGEJO_URL: forgejo.url, FORGEJO_TOKEN } : {}),
    ...(gitlab ? { GITLAB_URL: gitlab.url, GITLAB_TOKEN } : {}),
    GITHUB_API_URL: github.url,
    GITHUB_SERVER_URL: 'https://github.com',
    KUBECONFIG: kubeconfig,
    CLUSTER_NAME: 'sim-cluster',
    ENVIRONMENT: 'staging',
    DATABASE_PATH: join(dir, 'bridge.db'),
    RESYNC_INTERVAL: '1h',
    // The simulators answer plain http.
    ALLOW_HTTP_FORGE_URLS: 'true',
    ...(registry ? { REGISTRY_INSECURE_HOSTS: registry.host } : {}),
    ...extra,
  });
  return {
    dir,
    kube,
    github,
    forgejo,
    gitlab,
    registry,
    kubeconfig,
    env,
    async bridge(extra) {
      const b = await startBridge({ env: env(extra), webhookKey: WEBHOOK_KEY });
      bridges.push(b);
      return b;
    },
    async close() {
      await Promise.all(bridges.map((b) => b.kill('SIGKILL')));
      await Promise.all([kube.close(), github.close(), forgejo?.close(), gitlab?.close(), registry?.close()]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
