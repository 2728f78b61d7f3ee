/**
 * Launches the real Debian `tinyproxy` (package tinyproxy-bin, `/usr/bin/tinyproxy`) in the foreground
 * on 127.0.0.1 with a private temp config, for the outbound-proxy tests. Its log (`LogLevel Connect`)
 * names every request it was asked to forward; CONNECT is allowed to ports 443 and 563 only, as in
 * Debian's packaged config, so plain-HTTP targets must be sent as absolute-URI requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, stopProcess } from './processes.js';

/** How long tinyproxy may take to accept connections. */
const START_TIMEOUT_MS = 15_000;
/** Pause between two connection probes. */
const PROBE_INTERVAL_MS = 50;
/** Output lines kept for error messages. */
const LOG_TAIL_LINES = 40;

const MISSING = 'tinyproxy not found: install the Debian package tinyproxy-bin (apt-get install -y tinyproxy-bin; .ci/run does)';

/** One request tinyproxy was asked to forward: `GET` and `http://127.0.0.1:1234/v2/`, or `CONNECT` and `host:443`. */
export interface ProxiedRequest {
  method: string;
  target: string;
  /** `host:port` the request was for. */
  host: string;
}

export interface RunningTinyproxy {
  /** `http://127.0.0.1:<port>`: the value for HTTPS_PROXY / HTTP_PROXY. */
  url: string;
  /** Every request its log names so far, in order. */
  requests(): Promise<ProxiedRequest[]>;
  /** Stops the process (SIGTERM, then SIGKILL) and deletes its directory. */
  close(): Promise<void>;
}

function config(port: number, logFile: string): string {
  return [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Allow 127.0.0.1',
    'Timeout 60',
    'MaxClients 50',
    `LogFile ${JSON.stringify(logFile)}`,
    'LogLevel Connect',
    'ConnectPort 443',
    'ConnectPort 563',
    '',
  ].join('\n');
}

/** The request lines of tinyproxy's log: `Request (file descriptor 7): GET http://h:1/p HTTP/1.1`. */
export function parseProxyLog(text: string): ProxiedRequest[] {
  const out: ProxiedRequest[] = [];
  for (const m of text.matchAll(/Request \(file descriptor \d+\): (\S+) (\S+) HTTP\/[\d.]+$/gm)) {
    const [, method = '', target = ''] = m;
    out.push({ method, target, host: method === 'CONNECT' ? target : new URL(target).host });
  }
  return out;
}

/** Resolves once the port accepts a connection; rejects when the process ends first or never listens. */
async function waitListening(port: number, child: ChildProcess, tail: string[]): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`tinyproxy exited (${child.exitCode ?? child.signalCode}) before listening:\n${tail.join('\n')}`);
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      }).once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`tinyproxy did not listen within ${START_TIMEOUT_MS} ms:\n${tail.join('\n')}`);
    await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS));
  }
}

/** Starts a fresh tinyproxy; always `close()` it (tests: `t.teardown(proxy.close)`). */
export async function startTinyproxy(o: { binary?: string } = {}): Promise<RunningTinyproxy> {
  const dir = await mkdtemp(join(tmpdir(), 'gdb-tinyproxy-'));
  const logFile = join(dir, 'tinyproxy.log');
  const port = await freePort();
  await writeFile(join(dir, 'tinyproxy.conf'), config(port, logFile));
  // -d: in the foreground, so the test owns the process.
  const child = spawn(o.binary ?? 'tinyproxy', ['-d', '-c', join(dir, 'tinyproxy.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const tail: string[] = [];
  const keep = (chunk: Buffer) => {
    tail.push(...chunk.toString('utf8').trimEnd().split('\n'));
    tail.splice(0, Math.max(0, tail.length - LOG_TAIL_LINES));
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const spawnError = new Promise<never>((_, reject) =>
    child.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new Error(MISSING, { cause: err }) : err)),
  );
  const close = async () => {
    process.off('exit', killOnExit);
    await stopProcess(child);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([waitListening(port, child, tail), spawnError]);
  } catch (err) {
    await close();
    throw err;
  }
  return {
    url: `http://127.0.0.1:${port}`,
    requests: async () => parseProxyLog(await readFile(logFile, 'utf8').catch(() => '')),
    close,
  };
}
