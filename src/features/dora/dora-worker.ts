/**
 * The DORA figures' computation in a worker thread (issue 32), over its own read-only connection to the bridge's
 * database (WAL lets it read beside the writer): with 500,000 outcomes a computation takes seconds, and the event
 * loop that answers `/metrics`, `/state` and the webhook never waits for it. Asked `{ id, now }`, answers
 * `{ id, figures }` or `{ id, error }`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { doraWindow } from './dora-metrics.js';
import { matchesPattern } from '../../metadata/patterns.js';
import { openDatabaseReadOnly } from '../../store/database.js';
import { DoraStore } from './dora-store.js';

/** What the thread is started with: the database file, its schema version and `DORA_ENVIRONMENTS`' patterns. */
export interface DoraWorkerData {
  path: string;
  /** The bridge's schema version (`features/schema.ts`): another database's is refused. */
  version: number;
  environments: readonly string[];
}

const data = workerData as DoraWorkerData;
const store = new DoraStore(openDatabaseReadOnly(data.path, data.version));
const include = (e: string) => data.environments.some((p) => matchesPattern(p, e));

parentPort?.on('message', (m: { id: number; now: number }) => {
  try {
    parentPort?.postMessage({ id: m.id, figures: doraWindow(store, m.now, include) });
  } catch (error) {
    parentPort?.postMessage({ id: m.id, error: error instanceof Error ? error.message : String(error) });
  }
});
