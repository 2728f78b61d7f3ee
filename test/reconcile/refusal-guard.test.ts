/**
 * What the refusal guard lets through: a GitHub answer that retrying will not change always leaves it
 * as RefusedByForge; anything else it rethrows is retryable. The reconcile relies on this: it sorts
 * failures into refusals (skips) and outages (retry) and has no case of its own for 404 or 422.
 */
import t from 'tap';
import { pino } from 'pino';
import { GitHubError, isRetryable } from '../../src/common/errors.js';
import { GitHubCallError, type GitHubOperation } from '../../src/forges/github/call-error.js';
import { REFUSAL_RETRY_MS } from '../../src/forges/github/refusal-classify.js';
import { GuardedPublisher, RefusedByForge } from '../../src/reconcile/refusal-guard.js';
import { openDatabase } from '../../src/store/database.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { T0, candidate } from './plan-fixtures.js';

const OPERATIONS: Array<GitHubOperation | undefined> = [
  'listDeployments',
  'createDeployment',
  'listStatuses',
  'createStatus',
  'installation',
  'installationToken',
  'credentialCheck',
  undefined,
];
/** No answer, every class of 4xx GitHub gives (and some it never does), and the 5xx it gives. */
const STATUSES = [undefined, 400, 401, 403, 404, 405, 406, 408, 409, 410, 413, 415, 418, 422, 429, 451, 499, 500, 502, 503, 504];

t.test('every GitHub failure leaves the guard as a refusal or as something retryable', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const deployments = new DeploymentStore(db);
  const refusals = new RefusalStore(db);
  const { target, origin } = candidate('web');
  const failures: Error[] = [];
  for (const status of STATUSES)
    for (const operation of OPERATIONS) {
      failures.push(new GitHubCallError('failed', status, 'GitHub said no', operation));
      failures.push(new GitHubCallError('rate limited', status, undefined, operation, { retryAt: T0 }));
    }
  for (const status of STATUSES) failures.push(new GitHubError('failed', status));

  let escaped = 0;
  let clock = T0;
  for (const auth of ['token', 'app'] as const)
    for (const failure of failures) {
      // Past the retry time of the refusal the last failure recorded: each failure meets GitHub afresh.
      clock += REFUSAL_RETRY_MS;
      const guard = new GuardedPublisher({
        publisher: { publish: () => Promise.reject(failure) },
        refusals,
        deployments,
        auth,
        log: pino({ level: 'silent' }),
        now: () => clock,
      });
      const err = await guard.publish(target, origin, 'success', 'Flux').then(
        () => undefined,
        (e: unknown) => e,
      );
      if (!(err instanceof RefusedByForge) && !isRetryable(err)) escaped++;
    }
  t.equal(escaped, 0, `none of ${failures.length * 2} failures escaped as a final GitHub answer`);
});
