/**
 * A database file of many recorded outcomes, for the tests of where the DORA figures are computed (on the loop or
 * in the worker thread, which opens the file itself): written through the store's own write path, as in the bridge.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { keepOutcomes } from '../../../src/features/dora/dora-store.js';
import type { Db } from '../../../src/store/database.js';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { openDatabase } from '../../harness/database.js';
import { record, shopDeployment } from '../../harness/recorded-deployments.js';

/** How the outcomes are spread: outcome `i` starts at `first + i * everyMs` and ends 5 s later. */
export interface OutcomeSpread {
  count: number;
  first: number;
  everyMs: number;
  /** Outcome `i` is in `environments[i % length]`, of `acme/shop-<i % repos>`. */
  environments: readonly string[];
  repos: number;
  /** Outcome `i` is a failure when `i % failureEvery === 0`, else a success. */
  failureEvery: number;
}

/** Opens a new database file in a directory of its own (both gone at `t`'s teardown) and records the outcomes in it. */
export function outcomeDatabase(t: Test, spread: OutcomeSpread): { dir: string; path: string; db: Db } {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-dora-outcomes-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bridge.db');
  const db = openDatabase(path);
  t.teardown(() => db.close());
  // The store announces each outcome; DORA keeps them (as in the bridge, subscribed before any is recorded).
  const deployments = new DeploymentStore(keepOutcomes(db));
  db.transaction(() => {
    for (let i = 0; i < spread.count; i++) {
      const start = spread.first + i * spread.everyMs;
      const environment = spread.environments[i % spread.environments.length];
      const who = shopDeployment('a', { repo: `shop-${i % spread.repos}`, environment, sha: i.toString(16).padStart(40, '0') });
      record(deployments, who, start, [i % spread.failureEvery === 0 ? 'failure' : 'success', start + 5_000]);
    }
  })();
  return { dir, path, db };
}
