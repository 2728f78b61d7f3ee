/** The forge-neutral parts of commit times: which dates are read, and which failures mean "no such commit". */
import t from 'tap';
import { commitMissing, forgeDate } from '../../src/forges/commit-times-port.js';
import { ForgeError } from '../../src/common/errors.js';
import { GitHubCallError } from '../../src/forges/github/call-error.js';

t.test('forgeDate reads RFC 3339 dates of every forge, and nothing else', (t) => {
  const cases: Array<[unknown, number | null, string]> = [
    ['2026-11-30T10:00:00Z', Date.UTC(2026, 10, 30, 10), 'GitHub, UTC'],
    ['2026-11-30T12:00:00+02:00', Date.UTC(2026, 10, 30, 10), 'Forgejo, an offset'],
    ['2026-11-30T10:00:00.000+00:00', Date.UTC(2026, 10, 30, 10), 'GitLab, milliseconds'],
    ['2026-11-30', null, 'a date without a time'],
    ['yesterday', null, 'not a date'],
    ['2026-13-45T10:00:00Z', null, 'no such day'],
    [1764496800000, null, 'a number'],
    [undefined, null, 'absent'],
    [null, null, 'null'],
  ];
  for (const [value, want, why] of cases) t.equal(forgeDate(value), want, why);
  t.end();
});

t.test('commitMissing: a 404 or 422 answer, not an outage, a wait or a refused permission', (t) => {
  const cases: Array<[unknown, boolean, string]> = [
    [new ForgeError('not found', 404), true, 'GitLab or Forgejo 404'],
    [new ForgeError('no valid ref or sha', 422), true, "Forgejo's 422"],
    [new GitHubCallError('Not Found', 404, 'Not Found', 'getCommit'), true, "GitHub's 404"],
    [new ForgeError('unavailable', 503), false, 'an outage'],
    [new ForgeError('slow down', 429, { retryAt: 1 }), false, 'a rate limit'],
    [new GitHubCallError('Resource not accessible by integration', 403, undefined, 'getCommit'), false, 'a missing permission'],
    [new ForgeError('timeout'), false, 'no answer'],
    [new Error('404'), false, 'not a forge answer'],
  ];
  for (const [err, want, why] of cases) t.equal(commitMissing(err), want, why);
  t.end();
});
