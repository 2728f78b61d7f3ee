/**
 * The forges this bridge knows, once: one array of drivers, each its folder's (`forges/<name>/<name>-forge.ts`).
 * Everything else about the set of forges is derived from it: the settings tables and their types, routing,
 * `explain`, the URL settings and the rule that at least one forge is configured. Adding a forge adds one entry.
 */
import { combine, type Invalid, type Schema, type Setting } from '../common/settings-schema.js';
import type { ForgeHost } from '../metadata/forge-route.js';
import type { ReportTarget } from '../metadata/resolve-target.js';
import type { ExplainForm, Forge, ForgeDeps } from './forge.js';
import { assembleForge } from './assemble-forge.js';
import type { ForgeDriver } from './forge-driver.js';
import { forgejoForge } from './forgejo/forgejo-forge.js';
import { githubForge } from './github/github-forge.js';
import { gitlabForge } from './gitlab/gitlab-forge.js';

/** The forges in routing order: a bare `owner/repo` goes to the first configured one. */
export const DRIVERS = [githubForge, forgejoForge, gitlabForge] as const;

/** Any forge's driver, as the registry uses it. */
export type AnyDriver = ForgeDriver<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

type Drivers = typeof DRIVERS;
type SettingsOf<D> = D extends { connect(settings: infer S, deps: ForgeDeps): unknown } ? S : never;
type ReportingOf<D> = D extends { host(settings: infer R, credentials: boolean): unknown } ? R : never;
/** Over a list of drivers, the intersection of what each declares: `[A, B]` → `A's & B's`. */
type EverySettings<T> = T extends readonly [infer H, ...infer Rest] ? SettingsOf<H> & EverySettings<Rest> : unknown;
type EveryReporting<T> = T extends readonly [infer H, ...infer Rest] ? ReportingOf<H> & EveryReporting<Rest> : unknown;
type EveryReportingTable<T> = T extends readonly [infer H extends AnyDriver, ...infer Rest]
  ? H['settings']['reporting'] & EveryReportingTable<Rest>
  : unknown;
type EveryServiceTable<T> = T extends readonly [infer H extends AnyDriver, ...infer Rest]
  ? H['settings']['service'] & EveryServiceTable<Rest>
  : unknown;

/** What routing to every forge needs (the reporting configuration, which `explain` reads, satisfies it). */
export type ForgeReporting = EveryReporting<Drivers>;
/** Every forge's settings (the configuration satisfies it). */
export type ForgeSettings = EverySettings<Drivers>;

/**
 * The variables of every forge: when none is set, no forge is configured (a forge half configured, its token without
 * its URL, is named by its own settings instead).
 */
export function noForgeProblem(drivers: readonly AnyDriver[], text: (name: string) => string | undefined): string | undefined {
  if (drivers.some((d) => d.configuredBy.some((name) => text(name) !== undefined))) return undefined;
  return `no forge is configured: set credentials for at least one: ${drivers.map((d) => d.howToConfigure).join(', ')}`;
}

/**
 * The settings tables of a list of drivers, in its order: what shapes a report, and the server's own (first, the rule
 * that at least one of them is configured: a setting of no variable of its own, it reads the drivers').
 */
export function settingsTablesOf(drivers: readonly AnyDriver[]): { reporting: Schema; service: Schema } {
  const atLeastOneForge = combine({}, (_values, source): undefined | Invalid => {
    const problem = noForgeProblem(drivers, (name) => source.text(name));
    return problem === undefined ? undefined : source.problem(problem);
  });
  return {
    reporting: Object.assign({}, ...drivers.map((d) => d.settings.reporting)) as Schema,
    service: Object.assign({ atLeastOneForge }, ...drivers.map((d) => d.settings.service)) as Schema,
  };
}

const TABLES = settingsTablesOf(DRIVERS);
/** Every forge's settings that shape a report (`explain` reads them), in the configuration table's order. */
export const FORGE_REPORTING_SETTINGS = TABLES.reporting as EveryReportingTable<Drivers>;
/** Every forge's credentials and write settings: the server's own. */
export const FORGE_SERVICE_SETTINGS = TABLES.service as { atLeastOneForge: Setting<undefined> } & EveryServiceTable<Drivers>;

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
export function forgeHosts(
  settings: ForgeReporting,
  credentials: (forge: string) => boolean,
  drivers: readonly AnyDriver[] = DRIVERS,
): ForgeHost[] {
  return drivers.flatMap((d) => d.host(settings, credentials(d.name)) ?? []);
}

/**
 * Where each forge lives for `explain`, which reads no credentials: a forge counts as configured when the
 * environment configures it (`configuredIn`), and every forge does when the environment configures none.
 */
export function explainForgeHosts(settings: ForgeReporting, env: NodeJS.ProcessEnv): ForgeHost[] {
  const configured = new Set(DRIVERS.filter((d) => d.configuredIn(env)).map((d) => d.name));
  return forgeHosts(settings, (forge) => configured.size === 0 || configured.has(forge));
}

/** Builds each forge its settings configure (of `drivers`: the registry's by default). */
export function buildForges(settings: ForgeSettings, deps: ForgeDeps, drivers: readonly AnyDriver[] = DRIVERS): Forges {
  const list = drivers.flatMap((d) => assembleForge(d, settings, deps) ?? []);
  const built = new Set(list.map((f) => f.name));
  return {
    list,
    hosts: forgeHosts(settings, (forge) => built.has(forge), drivers),
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
    const driver: AnyDriver | undefined = DRIVERS.find((d) => d.name === t.forge);
    if (driver === undefined) throw new Error(`no forge named ${t.forge}`);
    return driver.explain(settings, t);
  };
}

/** Each forge URL the settings give, with its setting's name: the start-up line names the plain-http ones. */
export function forgeUrls(s: ForgeSettings, drivers: readonly AnyDriver[] = DRIVERS): Array<{ setting: string; url: string }> {
  return drivers.flatMap((d) => d.url(s) ?? []);
}
