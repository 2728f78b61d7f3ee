/**
 * Issue 32: the status page and `/state` carry what workload text must not escape through: a Content-Security-Policy
 * without scripts, `nosniff`, and `no-store` (before, neither sent any of the three), also on a 401.
 */
import pino from 'pino';
import t from 'tap';
import { createMetrics } from '../../src/common/metrics.js';
import { buildApp } from '../../src/http/http-app.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { IDLE_APP } from '../harness/idle-app.js';
import { openDatabase } from '../harness/database.js';

for (const stateToken of [undefined, 'a-state-token-of-at-least-32-bytes-long']) {
  t.test(
    `/ and /state send CSP, nosniff and no-store (${stateToken === undefined ? 'open' : 'with STATE_TOKEN, unauthorized'})`,
    async (t) => {
      const db = openDatabase(':memory:');
      const app = await buildApp({
        webhookKey: Buffer.from('k'),
        queue: new QueueStore(db),
        deployments: new DeploymentStore(db),
        sources: new SourceStore(db),
        metrics: createMetrics(),
        log: pino({ level: 'silent' }),
        now: Date.now,
        ...IDLE_APP,
        ...(stateToken === undefined ? {} : { stateToken }),
      });
      t.teardown(async () => {
        await app.close();
        db.close();
      });
      for (const url of ['/', '/state']) {
        const res = await app.inject({ method: 'GET', url });
        t.equal(res.statusCode, stateToken === undefined ? 200 : 401, url);
        const csp = String(res.headers['content-security-policy']);
        t.match(csp, /default-src 'none'/, `${url}: nothing loads or runs by default`);
        t.notMatch(csp, /script-src/, `${url}: no script source allowed`);
        t.match(csp, /frame-ancestors 'none'/);
        t.equal(res.headers['x-content-type-options'], 'nosniff', url);
        t.equal(res.headers['cache-control'], 'no-store', url);
      }
    },
  );
}
