/**
 * A fourth forge, in memory: "Acme Deploy" keeps one status per (repository, commit, environment), answers a
 * credential check, refuses the repositories it is told to (403), and records every write it applied.
 */
import { ForgeError } from '../../../src/common/errors.js';
import type { DeliveryState } from '../../../src/lifecycle/status-plan.js';

export interface AcmeStatusKey {
  owner: string;
  repo: string;
  sha: string;
  environment: string;
}

/** The calls the Acme publisher makes. */
export interface AcmePort {
  status(key: AcmeStatusKey): Promise<DeliveryState | undefined>;
  setStatus(key: AcmeStatusKey, state: DeliveryState): Promise<void>;
}

export class AcmeForge implements AcmePort {
  readonly writes: string[] = [];
  /** Every status call that reached it, refused ones too. */
  calls = 0;
  readonly refused = new Set<string>();
  tokenValid = true;
  private readonly statuses = new Map<string, DeliveryState>();

  private keyOf(k: AcmeStatusKey): string {
    this.calls++;
    if (!this.tokenValid) throw new ForgeError('401 bad token', 401, { operation: 'acme' });
    if (this.refused.has(`${k.owner}/${k.repo}`)) throw new ForgeError(`403 ${k.owner}/${k.repo} is read-only`, 403, { operation: 'acme' });
    return `${k.owner}/${k.repo}@${k.sha} ${k.environment}`;
  }

  whoami(): Promise<void> {
    return this.tokenValid ? Promise.resolve() : Promise.reject(new ForgeError('401 bad token', 401, { operation: 'acme' }));
  }

  status(k: AcmeStatusKey): Promise<DeliveryState | undefined> {
    return Promise.resolve(this.statuses.get(this.keyOf(k)));
  }

  setStatus(k: AcmeStatusKey, state: DeliveryState): Promise<void> {
    const key = this.keyOf(k);
    this.statuses.set(key, state);
    this.writes.push(`${key} ${state}`);
    return Promise.resolve();
  }

  /** What it shows now. */
  shown(): string[] {
    return [...this.statuses].map(([k, s]) => `${k} ${s}`);
  }
}
