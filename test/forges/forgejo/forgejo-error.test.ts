import t from 'tap';
import { isRetryable } from '../../../src/common/errors.js';
import { GitHubError } from '../../../src/forges/github/github-error.js';
import { ForgeError, forgeRefused, isForgeRetryable } from '../../../src/common/errors.js';
import { retryAtOf } from '../../../src/forges/forgejo/forgejo-error.js';

const NOW = 1_750_000_000_000;

t.test('isForgeRetryable follows the rules isRetryable has for GitHub', (t) => {
  const statuses = [undefined, 400, 401, 403, 404, 408, 409, 422, 429, 500, 502, 503];
  const expected: Record<string, boolean> = { undefined: true, 401: true, 408: true, 429: true, 500: true, 502: true, 503: true };
  for (const status of statuses) {
    const forge = new ForgeError('x', status);
    t.equal(isForgeRetryable(forge), expected[String(status)] ?? false, `${status}`);
    t.equal(isForgeRetryable(forge), isRetryable(new GitHubError('x', status)), `${status}: same as GitHub`);
  }
  t.ok(isForgeRetryable(new ForgeError('x', 403, { retryAt: NOW })), 'a refusal that names a time to come back is retried');
  t.notOk(isForgeRetryable(new Error('x')), 'only ForgeErrors');
  t.ok(isRetryable(new ForgeError('x', 503)), 'the worker sorts ForgeErrors with the same isRetryable');
  t.notOk(isRetryable(new ForgeError('x', 404)), 'a 404 is not retried');
  t.end();
});

t.test('forgeRefused: only a 4xx answer proves nothing was stored', (t) => {
  const table: Array<[number | undefined, boolean]> = [
    [undefined, false],
    [400, true],
    [401, true],
    [404, true],
    [429, true],
    [499, true],
    [500, false],
    [503, false],
  ];
  for (const [status, refused] of table) t.equal(forgeRefused(new ForgeError('x', status)), refused, `${status}`);
  t.notOk(forgeRefused(new GitHubError('x', 404)), 'a GitHub error is not a forge refusal');
  t.end();
});

t.test('retryAtOf: Retry-After on 429 and 503, in seconds or as an HTTP date', (t) => {
  const table: Array<[number, string | null, number | undefined]> = [
    [429, '7', NOW + 7000],
    [503, ' 0 ', NOW],
    [429, 'Wed, 01 Jul 2026 00:00:00 GMT', Date.parse('2026-07-01T00:00:00Z')],
    [503, 'Thu, 01 Jan 2015 00:00:00 GMT', NOW],
    [429, null, undefined],
    [429, '', undefined],
    [429, 'soon', undefined],
    [429, '-5', undefined],
    [500, '7', undefined],
    [403, '7', undefined],
  ];
  for (const [status, header, at] of table) t.equal(retryAtOf(status, header, NOW), at, `${status} ${JSON.stringify(header)}`);
  t.end();
});
