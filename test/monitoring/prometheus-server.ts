/**
 * Launches the real Prometheus (Debian's `prometheus` package, `/usr/bin/prometheus`) with a private
 * temp config and TSDB, scraping the given targets, and queries it through its HTTP API.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopProcess } from '../harness/processes.js';

/** How long Prometheus may take to answer `/-/ready`. */
const START_TIMEOUT_MS = 30_000;
/** Budget of one HTTP call to Prometheus. */
const REQUEST_TIMEOUT_MS = 10_000;
/** stderr lines kept for error messages. */
const LOG_TAIL_LINES = 40;
/** The job name the scrape config gives the targets. */
export const SCRAPE_JOB = 'github-deployment-bridge';

const MISSING =
  'prometheus not found: install the Debian package prometheus (apt-get install -y --no-install-recommends prometheus; .ci/run does)';

/** One series of an instant query's answer. */
export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface RunningPrometheus {
  url: string;
  /** `prometheus --version`'s first line. */
  version: string;
  /** An instant query at the current time; throws when Prometheus answers an error (a PromQL mistake). */
  query(expr: string): Promise<Sample[]>;
  close(): Promise<void>;
}

/** `prometheus --version`'s first line; throws naming the package when the binary is missing. */
export function prometheusVersion(binary = 'prometheus'): string {
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).split('\n')[0]!;
  } catch (err) {
    throw new Error(MISSING, { cause: err });
  }
}

function configYaml(targets: string[], scrapeIntervalS: number): string {
  return [
    'global:',
    `  scrape_interval: ${scrapeIntervalS}s`,
    `  scrape_timeout: ${scrapeIntervalS}s`,
    `  evaluation_interval: ${scrapeIntervalS}s`,
    'scrape_configs:',
    `  - job_name: ${SCRAPE_JOB}`,
    '    static_configs:',
    `      - targets: [${targets.map((t) => JSON.stringify(t)).join(', ')}]`,
    '',
  ].join('\n');
}

async function waitReady(url: string, child: ChildProcess, tail: string[]): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}) before it was ready:\n${tail.join('\n')}`);
    try {
      const res = await fetch(`${url}/-/ready`, { signal: AbortSignal.timeout(1_000) });
      await res.body?.cancel();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`prometheus at ${url} was not ready within ${START_TIMEOUT_MS} ms:\n${tail.join('\n')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Starts a fresh Prometheus scraping `targets` (`host:port`, path /metrics); always `close()` it. */
export async function startPrometheus(o: { targets: string[]; scrapeIntervalS?: number; binary?: string }): Promise<RunningPrometheus> {
  const binary = o.binary ?? 'prometheus';
  const version = prometheusVersion(binary);
  const dir = await mkdtemp(join(tmpdir(), 'gdb-prometheus-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  await writeFile(join(dir, 'prometheus.yml'), configYaml(o.targets, o.scrapeIntervalS ?? 1));
  const child = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const tail: string[] = [];
  child.stderr.on('data', (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').trimEnd().split('\n'));
    tail.splice(0, Math.max(0, tail.length - LOG_TAIL_LINES));
  });
  const close = async () => {
    process.off('exit', killOnExit);
    await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitReady(url, child, tail);
  } catch (err) {
    await close();
    throw err;
  }
  return {
    url,
    version,
    async query(expr) {
      const res = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query: expr }).toString()}`, {
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const body = (await res.json()) as { status: string; error?: string; data?: { resultType: string; result: Sample[] } };
      if (body.status !== 'success') throw new Error(`Prometheus refused ${expr}: ${body.error ?? res.status}`);
      if (body.data?.resultType !== 'vector') throw new Error(`${expr} is a ${body.data?.resultType}, not an instant vector`);
      return body.data.result;
    },
    close,
  };
}
