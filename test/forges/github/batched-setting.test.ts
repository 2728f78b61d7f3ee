import t from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../../src/common/metrics.js';
import { githubForge } from '../../../src/forges/github/github-forge.js';
import { DeploymentStore } from '../../../src/store/deployment-store.js';
import { RefusalStore } from '../../../src/store/refusal-store.js';
import { GITHUB_LIMITS } from '../github-limits.js';
import { assembleForge } from '../../../src/forges/assemble-forge.js';
import { openDatabase } from '../../harness/database.js';

const db = openDatabase(':memory:');
t.teardown(() => db.close());
const deps = {
  db,
  deployments: new DeploymentStore(db),
  refusals: new RefusalStore(db),
  metrics: createMetrics(),
  log: pino({ level: 'silent' }),
  now: Date.now,
  userAgent: 'gdb-test',
  dryRun: false,
};
const settings = {
  githubHost: 'github.com',
  githubAuth: { kind: 'token' as const, token: 't' },
  githubApiUrl: 'https://api.github.com',
  githubWriteIntervalMs: 0,
  githubWriteBudget: GITHUB_LIMITS,
};

t.test('GITHUB_BATCHED_LOOKUPS: on by default, its counts in /state; false: every find is the REST one', (t) => {
  const on = assembleForge(githubForge, settings, deps);
  const off = assembleForge(githubForge, { ...settings, githubBatchedLookups: false }, deps);
  t.teardown(() => {
    on?.stop();
    off?.stop();
  });
  t.match(on?.state(), { batchedLookups: { queries: 0, asked: 0, answered: 0, failed: 0, waiting: 0, restingUntil: null } });
  t.notOk(off && 'batchedLookups' in off.state());
  t.end();
});
