/**
 * The forges this bridge knows, once: each line names a forge's factory (its folder under forges/), and
 * `ForgeSettings` is what they are built from. Adding a forge adds one import, one type and one entry here.
 */
import type { ForgeHost } from '../metadata/forge-route.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { ExplainForm, Forge, ForgeDeps, ForgeFactory } from './forge.js';
import { forgejoForge, type ForgejoReporting, type ForgejoSettings } from './forgejo/forgejo-forge.js';
import { FORGEJO_REPORTING, FORGEJO_SERVICE } from './forgejo/forgejo-settings.js';
import { githubForge, type GitHubReporting, type GitHubSettings } from './github/github-forge.js';
import { GITHUB_REPORTING, GITHUB_SERVICE } from './github/github-settings.js';
import { gitlabForge, type GitLabReporting, type GitLabSettings } from './gitlab/gitlab-forge.js';
import { GITLAB_REPORTING, GITLAB_SERVICE } from './gitlab/gitlab-settings.js';

/** What routing to every forge needs (the reporting configuration, which `explain` reads, satisfies it). */
export type ForgeReporting = GitHubReporting & ForgejoReporting & GitLabReporting;
/** Every forge's settings (the configuration satisfies it). */
export type ForgeSettings = GitHubSettings & ForgejoSettings & GitLabSettings;

/** Every forge's settings that shape a report (`explain` reads them), in the configuration table's order. */
export const FORGE_REPORTING_SETTINGS = { ...GITHUB_REPORTING, ...FORGEJO_REPORTING, ...GITLAB_REPORTING };
/** Every forge's credentials and write settings: the server's own. */
export const FORGE_SERVICE_SETTINGS = { ...GITHUB_SERVICE, ...FORGEJO_SERVICE, ...GITLAB_SERVICE };

/** The forges in routing order: a bare `owner/repo` goes to the first configured one. */
export const FORGE_FACTORIES: ReadonlyArray<ForgeFactory<ForgeSettings, ForgeReporting>> = [githubForge, forgejoForge, gitlabForge];

/**
 * How long the start waits for the first credential checks before the worker may spend forge requests: a
 * rejected key pauses its forge before the first reconcile asks anything with it.
 */
export const FIRST_CHECK_WAIT_MS = 5_000;

/** The configured forges as the rest of the bridge uses them. */
export interface Forges {
  /** Each configured forge, in the registry's order. */
  list: readonly Forge[];
  /** Where each forge lives (configured ones serve; a known one without credentials says why not), for routing. */
  hosts: readonly ForgeHost[];
  /** Until when every configured forge is paused (credentials rejected: nothing could be written), else null. */
  pausedUntil(): number | null;
  /**
   * Starts the credential checks; resolves when each first check is answered, or after
   * FIRST_CHECK_WAIT_MS (a forge that does not answer does not hold the bridge back).
   */
  start(): Promise<void>;
  stop(): void;
}

/** Where each forge lives, given which have their credentials set. */
export function forgeHosts(settings: ForgeReporting, credentials: (forge: string) => boolean): ForgeHost[] {
  return FORGE_FACTORIES.flatMap((f) => f.host(settings, credentials(f.name)) ?? []);
}

/**
 * Where each forge lives for `explain`, which reads no credentials: a forge counts as configured when the
 * environment configures it (`configuredIn`), and every forge does when the environment configures none.
 */
export function explainForgeHosts(settings: ForgeReporting, env: NodeJS.ProcessEnv): ForgeHost[] {
  const configured = new Set(FORGE_FACTORIES.filter((f) => f.configuredIn(env)).map((f) => f.name));
  return forgeHosts(settings, (forge) => configured.size === 0 || configured.has(forge));
}

/** Builds each forge its settings configure. */
export function buildForges(settings: ForgeSettings, deps: ForgeDeps): Forges {
  const list = FORGE_FACTORIES.flatMap((f) => f.build(settings, deps) ?? []);
  const built = new Set(list.map((f) => f.name));
  return {
    list,
    hosts: forgeHosts(settings, (forge) => built.has(forge)),
    pausedUntil() {
      const until = list.map((f) => f.health.pausedUntil());
      return until.length === 0 || until.some((u) => u === null) ? null : Math.min(...(until as number[]));
    },
    async start() {
      let timer: NodeJS.Timeout | undefined;
      const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_CHECK_WAIT_MS)));
      await Promise.race([Promise.all(list.map((f) => f.start())), cap]);
      clearTimeout(timer);
    },
    stop: () => list.forEach((f) => f.stop()),
  };
}

/** How `explain` names each target, by the forge it is routed to. */
export function explainForm(settings: ForgeReporting): (target: ReportTarget) => ExplainForm {
  return (t) => {
    const factory = FORGE_FACTORIES.find((f) => f.name === t.forge);
    if (factory === undefined) throw new Error(`no forge named ${t.forge}`);
    return factory.explain(settings, t);
  };
}

/** Each forge URL the settings give, with its setting's name: the start-up line names the plain-http ones. */
export function forgeUrls(s: ForgeSettings): Array<{ setting: string; url: string }> {
  return [
    ...(s.githubAuth ? [{ setting: 'GITHUB_API_URL', url: s.githubApiUrl }] : []),
    ...(s.forgejoUrl ? [{ setting: 'FORGEJO_URL', url: s.forgejoUrl.webUrl }] : []),
    ...(s.gitlabUrl ? [{ setting: 'GITLAB_URL', url: s.gitlabUrl.webUrl }] : []),
  ];
}
