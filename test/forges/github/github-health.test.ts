import t from 'tap';
import { pino } from 'pino';
import { GitHubCallError, githubUnauthorized } from '../../../src/forges/github/call-error.js';
import { GITHUB_BUDGETS } from '../../../src/forges/github/rate-limit.js';
import { CredentialMonitor, RECHECK_FIRST_MS } from '../../../src/forges/credential-monitor.js';
import { ForgeHealth, ForgePaused, TOKEN_SCOPE, type ForgePause } from '../../../src/forges/forge-health.js';
import { isRetryable } from '../../../src/common/errors.js';

const log = pino({ level: 'silent' });

function clocked() {
  const clock = { now: 1_000_000 };
  const pauses: ForgePause[] = [];
  const health = new ForgeHealth({
    auth: 'token',
    forge: 'GitHub',
    budgets: GITHUB_BUDGETS,
    now: () => clock.now,
    onPause: (p) => pauses.push(p),
  });
  return { clock, pauses, health };
}

/** The ForgePaused assertOpen throws for a scope, or undefined when its requests may go. */
function refusal(health: ForgeHealth, scope?: string): unknown {
  try {
    health.assertOpen(scope);
    return undefined;
  } catch (e) {
    return e;
  }
}

t.test("a rate limit pauses its scope's requests until its time; a later one extends it; it is counted once", (t) => {
  const { clock, pauses, health } = clocked();
  t.equal(health.pausedUntil(TOKEN_SCOPE), null);
  t.equal(refusal(health), undefined);
  health.rateLimited({ kind: 'primary', until: clock.now + 5_000, reason: 'primary rate limit: spent' });
  t.equal(health.pausedUntil(TOKEN_SCOPE), clock.now + 5_000, 'the token by default');
  t.equal(health.pausedUntil(), null, 'the worker is not stopped: work that needs no request goes on');
  const err = refusal(health);
  t.type(err, ForgePaused);
  t.ok(isRetryable(err), 'a paused request is work for later');
  t.match(err, { retryAt: clock.now + 5_000, message: /^GitHub work paused until .*primary rate limit/ });
  health.rateLimited({ kind: 'secondary', until: clock.now + 2_000, reason: 'secondary' });
  t.equal(health.pausedUntil(TOKEN_SCOPE), clock.now + 5_000, 'an earlier end does not shorten the pause');
  health.rateLimited({ kind: 'secondary', until: clock.now + 9_000, reason: 'secondary later' });
  t.equal(health.pausedUntil(TOKEN_SCOPE), clock.now + 9_000, 'a later end extends it');
  t.equal(pauses.length, 1, 'one pause, extended');
  t.match(health.snapshot(), {
    pause: { scope: TOKEN_SCOPE, kind: 'secondary', since: 1_000_000, until: clock.now + 9_000 },
    pauses: [{ scope: TOKEN_SCOPE, kind: 'secondary' }],
  });
  clock.now += 9_000;
  t.equal(health.pausedUntil(TOKEN_SCOPE), null, 'over at its time');
  t.match(health.snapshot(), { pause: null, pauses: [] });
  health.rateLimited({ kind: 'primary', until: clock.now + 1_000, reason: 'again' });
  t.equal(pauses.length, 2, 'a new pause after the end is counted');
  t.end();
});

t.test('an App: a rate limit one installation hit pauses that installation only', (t) => {
  const clock = { now: 1_000_000 };
  const pauses: ForgePause[] = [];
  const health = new ForgeHealth({
    auth: 'app',
    forge: 'GitHub',
    budgets: GITHUB_BUDGETS,
    now: () => clock.now,
    onPause: (p) => pauses.push(p),
  });
  health.rateLimited({ kind: 'secondary', until: clock.now + 60_000, reason: 'secondary rate limit: wait' }, 'installation 7');
  t.equal(health.pausedUntil('installation 7'), clock.now + 60_000);
  t.equal(refusal(health, 'installation 8'), undefined, 'another installation goes on');
  t.equal(refusal(health, 'app'), undefined, "the App's own requests (installation look-ups, tokens) go on");
  t.equal(health.pausedUntil(), null, 'the worker goes on');
  t.match(refusal(health, 'installation 7'), {
    retryAt: clock.now + 60_000,
    pause: { scope: 'installation 7', kind: 'secondary' },
    message: /^GitHub requests of installation 7 paused until .*: secondary rate limit: wait$/,
  });
  health.rateLimited({ kind: 'secondary', until: clock.now + 30_000, reason: 'secondary' }, 'installation 8');
  t.same(
    pauses.map((p) => p.scope),
    ['installation 7', 'installation 8'],
    'each scope counted',
  );
  t.match(health.snapshot(), {
    pause: null,
    pauses: [
      { scope: 'installation 7', until: clock.now + 60_000 },
      { scope: 'installation 8', until: clock.now + 30_000 },
    ],
  });
  t.equal(health.secondaryRepeats('installation 7'), 1);
  t.equal(health.secondaryRepeats('app'), 0, 'streaks are per scope');
  clock.now += 30_000;
  t.match(health.snapshot().pauses, [{ scope: 'installation 7' }], 'one ended');

  health.credentialsRejected('401 Bad credentials', clock.now + 10_000);
  t.equal(health.pausedUntil(), clock.now + 10_000, 'rejected credentials stop everything');
  t.equal(health.pausedUntil('installation 8'), clock.now + 10_000);
  t.equal(health.pausedUntil('installation 7'), clock.now + 30_000, 'the longer of both');
  t.match(refusal(health, 'installation 7'), { pause: { kind: 'credentials' }, retryAt: clock.now + 30_000 });
  t.match(health.snapshot().pause, { kind: 'credentials' });
  t.end();
});

t.test('budgets per scope and resource; a spent core budget pauses its scope at once', (t) => {
  const { clock, health } = clocked();
  const reset = Math.ceil(clock.now / 1000) + 60;
  health.observe('installation 7', {
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4990',
    'x-ratelimit-reset': String(reset),
    'x-ratelimit-resource': 'core',
  });
  health.observe('app', { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '10', 'x-ratelimit-reset': String(reset) });
  t.match(health.snapshot().budgets, [
    { scope: 'installation 7', remaining: 4990 },
    { scope: 'app', remaining: 10 },
  ]);
  t.equal(health.pausedUntil('installation 7'), null);
  health.observe('installation 7', { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) });
  t.equal(health.pausedUntil('installation 7'), reset * 1000 + 1000);
  t.equal(health.pausedUntil('app'), null);
  t.match(health.snapshot().budgets, [{ scope: 'installation 7', remaining: 0 }, { scope: 'app' }]);
  t.end();
});

t.test('secondary limits without retry-after count up until a request of the scope succeeds', (t) => {
  const { health, clock } = clocked();
  health.rateLimited({ kind: 'secondary', until: clock.now + 1, reason: 's' });
  health.rateLimited({ kind: 'secondary', until: clock.now + 2, reason: 's' });
  t.equal(health.secondaryRepeats(), 2);
  health.succeeded('app');
  t.equal(health.secondaryRepeats(), 2, "another scope's success says nothing");
  health.succeeded();
  t.equal(health.secondaryRepeats(), 0);
  t.end();
});

t.test('rejected credentials: not ready, paused until a check passes, then resumed', (t) => {
  const { clock, health, pauses } = clocked();
  let resumed = 0;
  health.onResume(() => {
    resumed += 1;
  });
  t.equal(health.readinessProblem(), undefined);
  health.credentialsRejected('401 Bad credentials', clock.now + 60_000);
  t.match(health.readinessProblem(), /^GitHub credentials rejected: 401 Bad credentials \(next check /);
  t.equal(health.pausedUntil(), clock.now + 60_000);
  clock.now += 61_000;
  t.equal(health.pausedUntil(), clock.now + 1_000, 'still paused after the check time until a check passes');
  t.throws(() => health.assertOpen(), ForgePaused);
  t.match(pauses, [{ kind: 'credentials' }]);
  health.credentialsOk();
  t.equal(resumed, 1);
  t.equal(health.pausedUntil(), null);
  t.equal(health.readinessProblem(), undefined);
  health.credentialsUnreachable('timed out', clock.now + 1);
  t.equal(health.credentialState, 'ok', 'an unreachable check does not undo a known good state');
  t.end();
});

t.test('the credential monitor: first check, 401, recheck passes, resumes', async (t) => {
  const { clock, health } = clocked();
  const answers: Array<() => string | undefined> = [];
  let checks = 0;
  const monitor = new CredentialMonitor({
    health,
    unauthorized: githubUnauthorized,
    log,
    now: () => clock.now,
    check: () => {
      checks += 1;
      return Promise.resolve(answers.shift()!());
    },
  });
  t.teardown(() => monitor.stop());
  answers.push(() => {
    throw new GitHubCallError('401 Bad credentials', 401, 'Bad credentials', 'credentialCheck');
  });
  await monitor.start();
  t.equal(health.credentialState, 'rejected');
  t.equal(health.snapshot().credentials.nextCheckAt, clock.now + RECHECK_FIRST_MS);
  answers.push(() => undefined);
  await monitor.checkNow();
  t.equal(health.credentialState, 'ok');
  t.equal(health.pausedUntil(), null);

  answers.push(() => {
    throw new GitHubCallError('timed out', undefined, undefined, 'credentialCheck');
  });
  await monitor.checkNow();
  t.equal(health.credentialState, 'ok', 'a network failure of the check does not reject');
  answers.push(() => 'GitHub App x has Deployments permission "read": give it Deployments read & write');
  await monitor.checkNow();
  t.match(health.readinessProblem(), /Deployments permission "read"/, 'a missing permission stops the work');
  t.equal(checks, 4);
});

t.test('a 401 on a request: rejected at once and checked again right away (the token was dropped)', async (t) => {
  const { clock, health } = clocked();
  let checks = 0;
  const monitor = new CredentialMonitor({
    health,
    unauthorized: githubUnauthorized,
    log,
    now: () => clock.now,
    check: () => {
      checks += 1;
      return Promise.resolve(undefined);
    },
  });
  t.teardown(() => monitor.stop());
  clock.now += 10 * RECHECK_FIRST_MS;
  monitor.rejected('Bad credentials');
  t.equal(health.credentialState, 'rejected');
  t.equal(health.snapshot().credentials.nextCheckAt, clock.now, 'due now');
  await new Promise((r) => setTimeout(r, 20));
  t.equal(checks, 1, 'the check ran');
  t.equal(health.credentialState, 'ok');
});
