/** Helpers for the tests' child processes (real Debian daemons): a free port, a stop that always ends. */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** How long stopProcess waits after SIGTERM before SIGKILL. */
export const STOP_GRACE_MS = 5_000;

/** A TCP port free now on 127.0.0.1, for daemons that cannot be told to pick one (no port 0). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((r) => server.close(r));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export async function stopProcess(child: ChildProcess, graceMs = STOP_GRACE_MS): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
