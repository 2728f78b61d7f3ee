/** Shared pieces of the end-to-end benchmarks: opted-in workloads, settling, request tallies, RSS. */
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fluxEvent, type BridgeProcess } from '../test/harness/bridge-process.js';
import { OPT_IN, finishRollout } from '../test/e2e/scenario.js';
import { deployment } from '../test/harness/flux-objects.js';
import { queueIdle } from '../test/harness/state-body.js';
import type { World } from '../test/harness/world.js';

/**
 * Annotations naming repository and commit, so the bridge never asks a registry; with `forgeUrl`
 * (a Forgejo base URL) the repository is `<forgeUrl>/acme/<repo>`, else GitHub's `acme/<repo>`.
 */
export function annotated(repo: string, commit: string, forgeUrl?: string): Record<string, string> {
  const repository = forgeUrl === undefined ? `acme/${repo}` : `${forgeUrl}/acme/${repo}`;
  return { ...OPT_IN, 'github-deployment-bridge.io/repository': repository, 'github-deployment-bridge.io/commit': commit };
}

/** Puts an opted-in Deployment `apps/<name>` (rollout finished) whose repository (see `annotated`) and commit are annotated. */
export function putAnnotatedDeployment(world: World, name: string, repo: string, commit: string, forgeUrl?: string): void {
  world.kube.put(
    deployment({
      namespace: 'apps',
      name,
      annotations: annotated(repo, commit, forgeUrl),
      containers: [{ name: 'app', image: `registry.invalid/acme/${repo}:${commit.slice(0, 7)}` }],
    }),
  );
  finishRollout(world, name);
}

/** Waits until the bridge's queue is empty and nothing is running. */
export async function settled(bridge: BridgeProcess, timeoutMs = 600_000): Promise<void> {
  await bridge.waitFor(
    'queue drained',
    async () => {
      const text = await bridge.metrics();
      const depth = (state: string) => Number(new RegExp(`queue_depth\\{state="${state}"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
      if (depth('pending') !== 0 || depth('active') !== 0) return false;
      return queueIdle(await bridge.state());
    },
    timeoutMs,
  );
}

/**
 * Posts `times` identical ReconciliationSucceeded events for Kustomization flux-system/`source` and waits
 * until the bridge is idle; `from`/`to` bound the forge's requests they caused, `writes` and `requests` count them.
 */
export async function repeatEvents(
  bridge: BridgeProcess,
  forge: { requests: readonly unknown[]; writes(): readonly unknown[] },
  source: string,
  times: number,
): Promise<{ from: number; to: number; writes: number; requests: number }> {
  const from = forge.requests.length;
  const writesBefore = forge.writes().length;
  for (let i = 0; i < times; i++)
    await bridge.post(fluxEvent('Kustomization', 'flux-system', source, { reason: 'ReconciliationSucceeded' }));
  await settled(bridge);
  const to = forge.requests.length;
  return { from, to, writes: forge.writes().length - writesBefore, requests: to - from };
}

/** A GitHub path with owner, repo and numeric ids replaced by placeholders. */
export function githubEndpoint(method: string, path: string): string {
  return `${method} ${path.replace(/^\/repos\/[^/]+\/[^/]+/, '/repos/{owner}/{repo}').replace(/\/\d+(?=\/|$)/g, '/{id}')}`;
}

/** A Forgejo API path (below `/api/v1`) like `githubEndpoint`, commit SHAs replaced too, with its query. */
export function forgejoEndpoint(method: string, path: string, query: Record<string, string> = {}): string {
  const q = new URLSearchParams(query).toString();
  return `${githubEndpoint(method, path).replace(/\/[0-9a-f]{40}(?=\/|$)/, '/{sha}')}${q ? `?${q}` : ''}`;
}

/** A GitLab API path (below `/api/v4`): the project id as `:id`, numeric ids and commit SHAs replaced, with its query. */
export function gitlabEndpoint(method: string, path: string, query: Record<string, string> = {}): string {
  const q = new URLSearchParams(query).toString();
  const p = path
    .replace(/^\/projects\/[^/]+/, '/projects/:id')
    .replace(/\/[0-9a-f]{40}(?=\/|$)/, '/{sha}')
    .replace(/\/\d+(?=\/|$)/g, '/{id}');
  return `${method} ${p}${q ? `?${q}` : ''}`;
}

/** A Kubernetes path as `get <resource>` or `list <resource>` (namespace and name dropped). */
export function kubeEndpoint(method: string, path: string): string {
  const seg = path.split('/').filter(Boolean);
  const ns = seg.indexOf('namespaces');
  const scoped = ns >= 0 && seg.length > ns + 2;
  const resource = scoped ? seg[ns + 2]! : seg.at(-1)!;
  const named = scoped ? seg.length > ns + 3 : false;
  const verb = method !== 'GET' ? method.toLowerCase() : named ? 'get' : 'list';
  return `${verb} ${resource}${scoped ? ' (namespaced)' : ''}${seg.length > ns + 4 && scoped ? `/${seg.slice(ns + 4).join('/')}` : ''}`;
}

/** Counts strings, most frequent first. */
export function tally(keys: readonly string[]): Array<[string, number]> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => b[1] - a[1]);
}

/** Formats a tally as indented lines. */
export function formatTally(t: Array<[string, number]>): string {
  return t.map(([k, n]) => `    ${String(n).padStart(6)}  ${k}`).join('\n');
}

/** Resident set size of a process in MiB, from /proc/<pid>/status (Linux only). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) / 1024;
}

/** Writes one line to stdout. */
export function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The 1-, 5- and 15-minute load averages, for printing next to figures from a shared machine. */
export function load(): string {
  return `load ${loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')}`;
}

/**
 * The bridge's write budget for a benchmark that measures something else than the budget: `GITHUB_WRITE_BUDGET`
 * from the benchmark's environment, else one nothing reaches ("writes plentiful"). base-image-bump.ts measures
 * the budget itself, at its default.
 */
export function plentifulBudget(): Record<string, string> {
  return { GITHUB_WRITE_BUDGET: process.env.GITHUB_WRITE_BUDGET?.trim() || '1000000/1m' };
}

/**
 * The bridge's GitHub write spacing for a benchmark run: `GITHUB_WRITE_INTERVAL` from the benchmark's own
 * environment, passed on to the bridge; unset means the bridge's default (1 s, octokit's throttler).
 */
export function writeInterval(): { env: Record<string, string>; label: string } {
  const v = process.env.GITHUB_WRITE_INTERVAL?.trim();
  return v
    ? {
        env: { GITHUB_WRITE_INTERVAL: v, ...plentifulBudget() },
        label: `GITHUB_WRITE_INTERVAL=${v}, ${plentifulBudget().GITHUB_WRITE_BUDGET}`,
      }
    : { env: {}, label: 'write spacing and budget default (1 s, 80/1m,500/1h)' };
}
