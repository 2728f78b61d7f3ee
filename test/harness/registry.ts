/**
 * Launches the real Debian `docker-registry` (distribution 2.8) on 127.0.0.1 with a private
 * temp config and storage, for tests, bench and demo. Needs the Debian packages
 * `docker-registry`, and `apache2-utils` (htpasswd, for bcrypt) when auth is 'htpasswd'.
 * Auth 'token' also starts the harness token service (token-server.ts) and makes the registry
 * trust its certificate.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTokenServer, type TokenServer } from './token-server.js';

/** How long the registry may take to listen and answer `/v2/`. */
const START_TIMEOUT_MS = 15_000;
/** How long close() waits after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 5_000;
/** Budget of one readiness probe. */
const PROBE_TIMEOUT_MS = 1_000;
/** stderr lines kept for error messages. */
const LOG_TAIL_LINES = 40;

/** How the registry authenticates pulls and pushes. */
export type RegistryAuthMode = 'none' | 'htpasswd' | 'token';

/** Service and issuer names of 'token' mode (the `service` of the Bearer challenge). */
export const TOKEN_SERVICE = 'test-registry';
const TOKEN_ISSUER = 'test-token-issuer';

export interface RegistryOptions {
  /** Default 'none' (anonymous read and write). */
  auth?: RegistryAuthMode;
  /** Users for 'htpasswd' and 'token': name → password. */
  users?: Record<string, string>;
  /** 'token': repositories anonymous callers may pull (default none). */
  isPublic?: (repository: string) => boolean;
  /** Binary to run; default `docker-registry` from PATH. */
  binary?: string;
}

export interface RunningRegistry {
  /** `127.0.0.1:<port>`: what goes in image references and insecureHosts. */
  host: string;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** 'token' mode: the token service (mint push tokens, read its log). */
  token?: TokenServer;
  /** Stops the process (SIGTERM, then SIGKILL) and deletes its storage. */
  close(): Promise<void>;
}

const execFileAsync = promisify(execFile);

/** bcrypt htpasswd lines via apache2-utils' htpasswd (distribution only accepts bcrypt). */
async function htpasswdLines(users: Record<string, string>): Promise<string> {
  let out = '';
  for (const [user, pass] of Object.entries(users)) {
    try {
      const { stdout } = await execFileAsync('htpasswd', ['-nbB', user, pass]);
      out += `${stdout.trim()}\n`;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new Error('htpasswd not found: install the Debian package apache2-utils (apt-get install -y apache2-utils)', { cause: err });
      }
      throw err;
    }
  }
  return out;
}

function configYaml(dir: string, auth: RegistryAuthMode, realm?: string): string {
  const lines = [
    'version: 0.1',
    'log:',
    '  level: info', // the bound address is only logged at info level
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${JSON.stringify(join(dir, 'data'))}`,
    '  delete:',
    '    enabled: true',
    '  maintenance:',
    '    uploadpurging:',
    '      enabled: false',
    'http:',
    '  addr: 127.0.0.1:0',
    `  secret: ${randomBytes(16).toString('hex')}`,
  ];
  if (auth === 'htpasswd') {
    lines.push('auth:', '  htpasswd:', '    realm: test-registry', `    path: ${JSON.stringify(join(dir, 'htpasswd'))}`);
  }
  if (auth === 'token') {
    lines.push(
      'auth:',
      '  token:',
      `    realm: ${JSON.stringify(realm)}`,
      `    service: ${TOKEN_SERVICE}`,
      `    issuer: ${TOKEN_ISSUER}`,
      `    rootcertbundle: ${JSON.stringify(join(dir, 'token-cert.pem'))}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function waitForExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  if (!(await waitForExit(child, STOP_GRACE_MS))) {
    child.kill('SIGKILL');
    await waitForExit(child, STOP_GRACE_MS);
  }
}

/** Resolves with the bound `host:port` once the registry logs it; rejects if it dies or stalls. */
function boundAddress(child: ChildProcess, tail: string[], binary: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => done(new Error(`${binary} did not start within ${START_TIMEOUT_MS} ms:\n${tail.join('\n')}`)),
      START_TIMEOUT_MS,
    );
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > LOG_TAIL_LINES) tail.shift();
        const m = /listening on (127\.0\.0\.1:\d+)/.exec(line);
        if (m?.[1]) done(undefined, m[1]);
      }
    };
    const onError = (err: NodeJS.ErrnoException): void => {
      const hint =
        err.code === 'ENOENT'
          ? `${binary} not found: install the Debian package docker-registry (apt-get install -y docker-registry)`
          : `${binary} failed to start`;
      done(new Error(hint, { cause: err }));
    };
    const onExit = (code: number | null, sig: string | null): void =>
      done(new Error(`${binary} exited (${code ?? sig}) before listening:\n${tail.join('\n')}`));
    function done(err: Error | undefined, address?: string): void {
      clearTimeout(timer);
      child.off('error', onError).off('exit', onExit);
      // keep draining stderr so the child never blocks on a full pipe
      if (err) reject(err);
      else resolve(address!);
    }
    child.stderr!.on('data', onData);
    child.once('error', onError).once('exit', onExit);
  });
}

async function waitUntilServing(url: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    try {
      const res = await fetch(`${url}/v2/`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      await res.body?.cancel();
      if (res.status === 200 || res.status === 401) return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`registry at ${url} never answered /v2/`, { cause: err });
    }
    if (Date.now() > deadline) throw new Error(`registry at ${url} never answered /v2/ with 200 or 401`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a fresh, empty registry; always `close()` it (tests: `t.teardown(reg.close)`). */
export async function startRegistry(options: RegistryOptions = {}): Promise<RunningRegistry> {
  const auth = options.auth ?? 'none';
  const binary = options.binary ?? 'docker-registry';
  const dir = await mkdtemp(join(tmpdir(), 'gdb-registry-'));
  let child: ChildProcess | undefined;
  let token: TokenServer | undefined;
  const killOnExit = (): void => {
    child?.kill('SIGKILL');
  };
  try {
    if (auth === 'htpasswd') await writeFile(join(dir, 'htpasswd'), await htpasswdLines(options.users ?? {}), { mode: 0o600 });
    if (auth === 'token') {
      token = await startTokenServer({
        service: TOKEN_SERVICE,
        issuer: TOKEN_ISSUER,
        users: options.users ?? {},
        ...(options.isPublic ? { isPublic: options.isPublic } : {}),
      });
      await writeFile(join(dir, 'token-cert.pem'), token.certificatePem);
    }
    const configPath = join(dir, 'config.yml');
    await writeFile(configPath, configYaml(dir, auth, token?.realm));
    child = spawn(binary, ['serve', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
    process.once('exit', killOnExit);
    const tail: string[] = [];
    const host = await boundAddress(child, tail, binary);
    const url = `http://${host}`;
    await waitUntilServing(url);
    const running = child;
    const tokenServer = token;
    let closing: Promise<void> | undefined;
    return {
      host,
      url,
      ...(tokenServer ? { token: tokenServer } : {}),
      close: () =>
        (closing ??= (async () => {
          process.off('exit', killOnExit);
          await stop(running);
          await tokenServer?.close();
          await rm(dir, { recursive: true, force: true });
        })()),
    };
  } catch (err) {
    process.off('exit', killOnExit);
    if (child) await stop(child);
    await token?.close();
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
