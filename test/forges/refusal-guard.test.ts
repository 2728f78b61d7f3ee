/**
 * What the refusal guard lets through: a GitHub answer that retrying will not change always leaves it
 * as RefusedByForge; anything else it rethrows is retryable. The reconcile relies on this: it sorts
 * failures into refusals (skips) and outages (retry) and has no case of its own for 404 or 422.
 */
import t from 'tap';
import { guardGitHub } from '../../src/forges/github/github-forge.js';
import { pino } from 'pino';
import { isRetryable } from '../../src/common/errors.js';
import { GitHubError } from '../../src/forges/github/github-error.js';
import { GitHubCallError, type GitHubOperation } from '../../src/forges/github/call-error.js';
import { DeploymentDeleted } from '../../src/forges/github/refusal-classify.js';
import { REFUSAL_RETRY_MS } from '../../src/lifecycle/refusal.js';
import { identityKey } from '../../src/lifecycle/identity.js';
import { GuardedPublisher, RefusedByForge } from '../../src/forges/refusal-guard.js';
import type { ReportTarget } from '../../src/metadata/resolve-target.js';
import { refusalKeys } from '../../src/lifecycle/refusal.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { commitOf } from '../harness/kube-meta.js';
import { T0, candidate } from '../reconcile/plan-fixtures.js';
import { openDatabase } from '../harness/database.js';

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
      const guard = guardGitHub({
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

t.test('a deployment deleted on GitHub: published again, a new one of its own once, said in the log', async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const { target, origin } = candidate('web');
  const older = { ...target, sha: commitOf('web-old') };
  const notFound = new GitHubCallError('404 Not Found', 404, 'Not Found', 'createStatus');
  const lines: Array<{ msg: string; deploymentId: number }> = [];
  const log = pino({ level: 'info' }, { write: (l: string) => lines.push(JSON.parse(l) as { msg: string; deploymentId: number }) });
  const rig = (failures: Error[]) => {
    let calls = 0;
    const guard = guardGitHub({
      publisher: {
        publish: () => {
          const failure = failures[calls++];
          return failure === undefined ? Promise.resolve('published') : Promise.reject(failure);
        },
      },
      refusals: new RefusalStore(db),
      deployments: new DeploymentStore(db),
      auth: 'token',
      log,
      now: () => T0,
    });
    return { guard, calls: () => calls };
  };

  lines.length = 0;
  const once = rig([new DeploymentDeleted(target, 7, notFound)]);
  t.equal(await once.guard.publish(target, origin, 'success', 'Flux'), 'published');
  t.equal(once.calls(), 2);
  t.match(lines, [{ msg: 'deployment 7 was deleted on GitHub; creating a new one', deploymentId: 7 }]);

  lines.length = 0;
  const superseded = rig([new DeploymentDeleted(older, 3, notFound), new DeploymentDeleted(target, 7, notFound)]);
  t.equal(await superseded.guard.publish(target, origin, 'success', 'Flux'), 'published', 'an older one, then its own');
  t.equal(superseded.calls(), 3);
  t.match(lines, [{ msg: 'deployment 3 was deleted on GitHub; it needs no inactive' }, { msg: /^deployment 7 .*creating a new one$/ }]);

  const twice = rig([new DeploymentDeleted(target, 7, notFound), new DeploymentDeleted(target, 8, notFound)]);
  const err = await twice.guard.publish(target, origin, 'success', 'Flux').catch((e: unknown) => e);
  t.equal(twice.calls(), 2, 'one new deployment, not more');
  t.ok(err instanceof RefusedByForge);
  t.match((err as RefusedByForge).refusal, {
    key: `deployment:${identityKey(target)}`,
    code: 'github_not_found',
    reason: `the deployment of ${target.sha.slice(0, 7)} in acme/web was deleted on GitHub, and so was the new one (404)`,
    retryAt: T0 + REFUSAL_RETRY_MS,
  });
});

t.test("prepare: the publisher's look-ahead for the targets no refusal holds; its failure is the publishes' own", async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const refusals = new RefusalStore(db);
  const held = candidate('held').target;
  const open = candidate('open').target;
  refusals.record({ forge: 'GitHub', key: refusalKeys(held).repo, code: 'not_found', reason: 'gone', status: 404, retryAt: T0 + 1 }, T0);
  const asked: string[][] = [];
  const guard = (prepare: (targets: readonly ReportTarget[]) => Promise<void>) =>
    new GuardedPublisher({
      publisher: { publish: () => Promise.resolve('published'), prepare },
      refusals,
      deployments: new DeploymentStore(db),
      classify: () => undefined,
      forge: 'Forgejo',
      log: pino({ level: 'silent' }),
      now: () => T0,
    });
  await guard((targets) => {
    asked.push(targets.map((x) => x.repo));
    return Promise.resolve();
  }).prepare([held, open]);
  t.same(asked, [[open.repo]], 'the refused repository is not asked');
  await guard(() => Promise.reject(new Error('503'))).prepare([open]);
  t.pass('a failed look-ahead does not throw');
});
