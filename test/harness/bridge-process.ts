/** Starts the real bridge process (dist/src/main.js) for end-to-end tests, the demo and benchmarks. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { errorMessage } from '../../src/common/errors.js';
import { signBody } from '../../src/http/hmac.js';
import type { Readiness } from '../../src/health/readiness.js';
import { REPO_ROOT } from '../fixtures/locate.js';
import { PRODUCTION_MALLOC_ENV, PRODUCTION_NODE_FLAGS } from './node-flags.js';
import type { StateBody } from './state-body.js';

/** How long the process may take to start listening. */
const START_TIMEOUT_MS = 60_000;

export const MAIN_JS = join(REPO_ROOT, 'dist', 'src', 'main.js');

export interface BridgeProcess {
  url: string;
  child: ChildProcess;
  /** Every JSON log line the process printed, parsed. */
  logs: Array<Record<string, unknown>>;
  /** Raw stderr (configuration errors land here). */
  stderr(): string;
  /** POSTs a JSON body signed with `key` (or with the given signature header). */
  post(
    body: string | object,
    opts?: { key?: string; signature?: string | null; contentType?: string },
  ): Promise<{ status: number; body: unknown }>;
  /** GETs a path; the body parsed when it is JSON, else the text. */
  get(path: string): Promise<{ status: number; body: unknown }>;
  /** GET /state (the declared shape of its JSON). */
  state(): Promise<StateBody>;
  /** GET /readyz: 200 or 503, with the reasons. */
  readyz(): Promise<{ status: number; body: Readiness }>;
  /** GET /metrics: Prometheus text. */
  metrics(): Promise<string>;
  /** Polls until `check` returns a truthy value; throws with the last state after `timeoutMs`. */
  waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs?: number): Promise<T>;
  kill(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface BridgeOptions {
  env: Record<string, string>;
  webhookKey: string;
  /** Runs this command in `cwd` instead of `node dist/src/main.js` here (the container test's staged image tree). */
  command?: { argv: string[]; cwd: string };
}

/** Bridges still running: killed when the test process exits, even when tap's timeout ends it. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of running) c.kill('SIGKILL');
});

/** Spawns `node dist/src/main.js` with only the given environment (plus PATH) and waits until it listens. */
export async function startBridge(o: BridgeOptions): Promise<BridgeProcess> {
  // Through env(1), without the NODE_OPTIONS tap adds to node child processes (its process-info loader:
  // over 200 MiB of RSS and several times the start-up time): the bridge runs as it would in production.
  // The pid is still node's (env execs it). With the Dockerfile's node flags and malloc variables (node-flags.ts): what ships.
  // BRIDGE_NODE_ARGS (space-separated) adds node flags for profiling, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = (process.env.BRIDGE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const argv = o.command?.argv ?? [process.execPath, ...PRODUCTION_NODE_FLAGS, ...nodeArgs, MAIN_JS];
  const child = spawn('env', ['-u', 'NODE_OPTIONS', ...argv], {
    ...(o.command ? { cwd: o.command.cwd } : {}),
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', ...PRODUCTION_MALLOC_ENV, ...o.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  let buf = '';
  let resolveAddress: (a: string) => void;
  const address = new Promise<string>((r) => {
    resolveAddress = r;
  });
  child.stdout.on('data', (chunk: Buffer) => {
    buf += chunk.toString('utf8');
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      try {
        const rec = JSON.parse(line) as Record<string, unknown>;
        logs.push(rec);
        if (rec.msg === 'github-deployment-bridge started') resolveAddress(String(rec.address));
      } catch {
        stderr += `${line}\n`;
      }
    }
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), START_TIMEOUT_MS);
  });
  const first = await Promise.race([address, exited.then(() => null), timeout]);
  clearTimeout(timer);
  if (first === 'timeout') {
    child.kill('SIGKILL');
    throw new Error(`bridge did not log its address within ${START_TIMEOUT_MS} ms (LOG_LEVEL must be info or lower):\n${stderr}`);
  }
  if (first === null) throw new Error(`bridge exited before listening:\n${stderr}`);
  const url = first.replace('0.0.0.0', '127.0.0.1');

  const bridge: BridgeProcess = {
    url,
    child,
    logs,
    stderr: () => stderr,
    async post(body, opts = {}) {
      const raw = typeof body === 'string' ? body : JSON.stringify(body);
      const headers: Record<string, string> = { 'content-type': opts.contentType ?? 'application/json' };
      const sig = opts.signature === undefined ? signBody(opts.key ?? o.webhookKey, raw) : opts.signature;
      if (sig !== null) headers['x-signature'] = sig;
      const res = await fetch(`${url}/webhook`, { method: 'POST', headers, body: raw, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      return { status: res.status, body: text ? JSON.parse(text) : undefined };
    },
    async get(path) {
      const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* metrics are text */
      }
      return { status: res.status, body: parsed };
    },
    async state() {
      // The declared shape of the bridge's JSON: the boundary where untyped JSON becomes typed.
      return (await bridge.get('/state')).body as StateBody;
    },
    async readyz() {
      const { status, body } = await bridge.get('/readyz');
      return { status, body: body as Readiness };
    },
    async metrics() {
      return String((await bridge.get('/metrics')).body);
    },
    async waitFor(what, check, timeoutMs = 45_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const v = await check();
        if (v) return v;
        if (Date.now() > deadline) {
          const state = await bridge.get('/state').catch((e: unknown) => ({ body: errorMessage(e) }));
          throw new Error(`timed out waiting for ${what}; /state: ${JSON.stringify(state.body).slice(0, 3000)}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async kill(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
  return bridge;
}

/** A Flux event body as notification-controller's generic-hmac Provider sends it (compact JSON, Go field order). */
export function fluxEvent(
  kind: string,
  namespace: string,
  name: string,
  o: { reason?: string; severity?: string; message?: string; revision?: string } = {},
): string {
  return JSON.stringify({
    involvedObject: {
      kind,
      namespace,
      name,
      uid: '351d7dcc-a14b-4a58-b32b-c2e47a0d751d',
      apiVersion: kind === 'HelmRelease' ? 'helm.toolkit.fluxcd.io/v2' : 'kustomize.toolkit.fluxcd.io/v1',
      resourceVersion: '19516',
    },
    severity: o.severity ?? 'info',
    timestamp: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    message: o.message ?? 'Deployment/apps/web configured',
    reason: o.reason ?? 'Progressing',
    metadata: { revision: o.revision ?? 'main@sha1:07a684d59d1bc9a58e0c0d07ed480812b2b9a29e' },
    reportingController: kind === 'HelmRelease' ? 'helm-controller' : 'kustomize-controller',
    reportingInstance: 'kustomize-controller-6bc5d5b96-j9lw6',
  });
}
