/**
 * The health, credential check and gates of a forge reached with one token (Forgejo, GitLab): nothing is sent
 * while paused (a rejected token, a 429/503 that named a time), a 401 pauses the forge until the check passes
 * again, and 5xx or network failures show as an outage until a request succeeds. Requests and pauses are counted
 * under the forge's `forge` label.
 */
import type { Logger } from 'pino';
import { ForgeError } from '../common/errors.js';
import type { Metrics } from '../common/metrics.js';
import { secretValue, type RotatingSecret } from '../common/rotating-secret.js';
import type { ForgeDeps } from './forge.js';
import { CredentialMonitor } from './credential-monitor.js';
import { commentScope, ForgeHealth, TOKEN_SCOPE, type BudgetReader } from './forge-health.js';
import { forgeGate } from './forge-gate.js';

/** Counts one request a forge's client made, by operation and outcome (`gdb_forge_requests_total`). */
export function requestCounter(metrics: Metrics, forge: string): (operation: string, outcome: number | string) => void {
  return (operation, outcome) => metrics.forgeRequests.inc({ forge, operation, status: String(outcome) });
}

/** A forge's health tracker, its pauses counted under its `forge` label (`gdb_forge_pauses_total`). */
export function forgeHealthOf(o: {
  forge: string;
  title: string;
  auth: 'token' | 'app';
  metrics: Metrics;
  now: () => number;
  budgets?: BudgetReader;
}): ForgeHealth {
  return new ForgeHealth({
    auth: o.auth,
    forge: o.title,
    now: o.now,
    ...(o.budgets ? { budgets: o.budgets } : {}),
    onPause: (p) => o.metrics.forgePauses.inc({ forge: o.forge, kind: p.kind }),
  });
}

/** What a token forge's side (its client, health and gates) is built from: where it is, its token, its counters. */
export interface TokenForgeOptions<L> {
  location: L;
  /** The token, or a function that reads it (its `…_TOKEN_FILE`, re-read before each request). */
  token: string | (() => Promise<string>);
  userAgent: string;
  metrics: Metrics;
  log: Logger;
  now: () => number;
}

/** A token forge's side options from the bridge's dependencies: its log lines carry `component: <forge>`. */
export function tokenForgeOptions<L>(d: ForgeDeps, forge: string, location: L, token: RotatingSecret): TokenForgeOptions<L> {
  return {
    location,
    token: secretValue(token),
    userAgent: d.userAgent,
    metrics: d.metrics,
    log: d.log.child({ component: forge }),
    now: d.now,
  };
}

export interface TokenSideOptions {
  /** Its name (metric labels) and title (messages). */
  forge: string;
  title: string;
  metrics: Metrics;
  log: Logger;
  now: () => number;
  /** The credential check (`GET /user`); throws a ForgeError on failure. */
  check: () => Promise<void>;
  /** How the forge asks to wait, for the log line: `Forgejo asked to wait (Retry-After)`. */
  waitWords: string;
  /** Turns the client's own error into a ForgeError (GitLab's `GitLabError`). */
  translate?: (err: unknown) => unknown;
}

/** A token forge's health, credential check, its requests' gate and its comments' gate. */
export function tokenSide(o: TokenSideOptions) {
  const health = forgeHealthOf({ ...o, auth: 'token' });
  const monitor = new CredentialMonitor({
    health,
    log: o.log,
    now: o.now,
    check: async () => {
      await o.check();
      return undefined;
    },
    unauthorized: (err) => (err instanceof ForgeError && err.status === 401 ? `401 ${err.forgeMessage ?? 'unauthorized'}` : undefined),
  });
  const gate = {
    health,
    monitor,
    log: o.log,
    waitWords: o.waitWords,
    notSent: () => o.metrics.forgeRequests.inc({ forge: o.forge, operation: 'any', status: 'paused' }),
    ...(o.translate ? { translate: o.translate } : {}),
  };
  // Comments wait for the token's pauses, but a wait asked of a comment pauses comments only.
  return { health, monitor, gated: forgeGate(gate), commentsGated: forgeGate({ ...gate, pauseScope: commentScope(TOKEN_SCOPE) }) };
}
