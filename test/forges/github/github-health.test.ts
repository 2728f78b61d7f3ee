import t from 'tap';
import { pino } from 'pino';
import { GitHubCallError } from '../../../src/forges/github/call-error.js';
import { CredentialMonitor, RECHECK_FIRST_MS } from '../../../src/forges/github/credential-check.js';
import { GitHubHealth, GitHubPaused, type GitHubPause } from '../../../src/forges/github/github-health.js';
import { isRetryable } from '../../../src/common/errors.js';

const log = pino({ level: 'silent' });

function clocked() {
  const clock = { now: 1_000_000 };
  const pauses: GitHubPause[] = [];
  const health = new GitHubHealth({ auth: 'token', now: () => clock.now, onPause: (p) => pauses.push(p) });
  return { clock, pauses, health };
}

t.test('a rate limit pauses every request until its time; a later one extends it; it is counted once', (t) => {
  const { clock, pauses, health } = clocked();
  t.equal(health.pausedUntil(), null);
  t.doesNotThrow(() => health.assertOpen());
  health.rateLimited({ kind: 'primary', until: clock.now + 5_000, reason: 'primary rate limit: spent' });
  t.equal(health.pausedUntil(), clock.now + 5_000);
  const err = (() => {
    try {
      health.assertOpen();
    } catch (e) {
      return e;
    }
  })();
  t.type(err, GitHubPaused);
  t.ok(isRetryable(err), 'a paused request is work for later');
  t.match(err, { retryAt: clock.now + 5_000, message: /paused until .*primary rate limit/ });
  health.rateLimited({ kind: 'secondary', until: clock.now + 2_000, reason: 'secondary' });
  t.equal(health.pausedUntil(), clock.now + 5_000, 'an earlier end does not shorten the pause');
  health.rateLimited({ kind: 'secondary', until: clock.now + 9_000, reason: 'secondary later' });
  t.equal(health.pausedUntil(), clock.now + 9_000, 'a later end extends it');
  t.equal(pauses.length, 1, 'one pause, extended');
  t.match(health.snapshot().pause, { kind: 'secondary', since: 1_000_000, until: clock.now + 9_000 });
  clock.now += 9_000;
  t.equal(health.pausedUntil(), null, 'over at its time');
  t.equal(health.snapshot().pause, null);
  health.rateLimited({ kind: 'primary', until: clock.now + 1_000, reason: 'again' });
  t.equal(pauses.length, 2, 'a new pause after the end is counted');
  t.end();
});

t.test('budgets per scope and resource; a spent core budget pauses at once', (t) => {
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
  t.equal(health.pausedUntil(), null);
  health.observe('installation 7', { 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset) });
  t.equal(health.pausedUntil(), reset * 1000 + 1000);
  t.match(health.snapshot().budgets, [{ scope: 'installation 7', remaining: 0 }, { scope: 'app' }]);
  t.end();
});

t.test('secondary limits without retry-after count up until a request succeeds', (t) => {
  const { health, clock } = clocked();
  health.rateLimited({ kind: 'secondary', until: clock.now + 1, reason: 's' });
  health.rateLimited({ kind: 'secondary', until: clock.now + 2, reason: 's' });
  t.equal(health.secondaryRepeats, 2);
  health.succeeded();
  t.equal(health.secondaryRepeats, 0);
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
  t.throws(() => health.assertOpen(), GitHubPaused);
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
