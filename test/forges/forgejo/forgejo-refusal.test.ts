import t from 'tap';
import { GitHubCallError } from '../../../src/forges/github/call-error.js';
import { githubRefusalOf } from '../../../src/forges/github/refusal-classify.js';
import { REFUSAL_RETRY_MS, refusalKeys, type RefusalTarget } from '../../../src/lifecycle/refusal.js';
import { ForgeError } from '../../../src/common/errors.js';
import type { ForgejoOperation } from '../../../src/forges/forgejo/forgejo-error.js';
import { forgejoRefusalOf } from '../../../src/forges/forgejo/forgejo-refusal.js';

const NOW = 1_750_000_000_000;
const SHA = '0123abc'.padEnd(40, 'f');
/** The deployment every case is about: mixed case, to show the repository key is lower-cased. */
const target: RefusalTarget = {
  forge: 'github',
  owner: 'Acme',
  repo: 'Shop',
  environment: 'preview-pr-42',
  sha: SHA,
  deploymentName: 'shop',
};
const REPO_KEY = 'repo:forgejo:acme/shop';
const DEPLOYMENT_KEY = `deployment:forgejo|acme|shop|preview-pr-42|${SHA}|shop`;

const answered = (status: number | undefined, o: { retryAt?: number; operation?: ForgejoOperation; notSent?: boolean } = {}) =>
  new ForgeError(`create pending status: ${status ?? 'no answer'}`, status, { forgeMessage: 'said so', operation: 'createStatus', ...o });

t.test('refusals: 404 and 403 block the repository, 422 and other 4xx the one context', (t) => {
  const rows: Array<[string, ForgeError, string, string, RegExp]> = [
    ['404', answered(404), REPO_KEY, 'forgejo_not_found', /^Acme\/Shop not found on Forgejo, or FORGEJO_TOKEN's user cannot see it/],
    ['403', answered(403), REPO_KEY, 'forgejo_forbidden', /^Forgejo refused access to Acme\/Shop \(403 said so\): .*write:repository/],
    ['422', answered(422), DEPLOYMENT_KEY, 'forgejo_invalid', /^Forgejo refused the status of 0123abc on Acme\/Shop \(422 said so\)$/],
    ['409', answered(409), DEPLOYMENT_KEY, 'forgejo_rejected', /^Forgejo refused createStatus for Acme\/Shop \(409 said so\)$/],
    [
      '400 without an operation',
      new ForgeError('bad request', 400),
      DEPLOYMENT_KEY,
      'forgejo_rejected',
      /^Forgejo refused a request for Acme\/Shop \(400 bad request\)$/,
    ],
  ];
  for (const [name, err, key, code, reason] of rows) {
    const r = forgejoRefusalOf(err, target, NOW);
    t.match(r, { key, code, reason, status: err.status }, name);
    t.equal(r?.retryAt, NOW + REFUSAL_RETRY_MS, `${name}: retried after REFUSAL_RETRY_MS`);
  }
  t.end();
});

t.test('what retrying soon may fix is not a refusal', (t) => {
  const rows: Array<[string, unknown]> = [
    ['401', answered(401)],
    ['500', answered(500)],
    ['502', answered(502)],
    ['503 with Retry-After', answered(503, { retryAt: NOW + 30_000 })],
    ['408', answered(408)],
    ['429 with Retry-After', answered(429, { retryAt: NOW + 30_000 })],
    ['429 without', answered(429)],
    ['403 with Retry-After (a proxy)', answered(403, { retryAt: NOW + 30_000 })],
    ['network (no status)', answered(undefined)],
    ['not sent (paused)', new ForgeError('Forgejo work paused', undefined, { notSent: true, retryAt: NOW + 60_000 })],
    ['a GitHub error', new GitHubCallError('nope', 404, 'Not Found', 'createDeployment')],
    ['a plain Error', new Error('404')],
    ['not an error', { status: 404 }],
  ];
  for (const [name, err] of rows) t.equal(forgejoRefusalOf(err, target, NOW), undefined, name);
  t.end();
});

t.test("the forge is part of the keys: every forge's keys name it, so the same target's keys are distinct", (t) => {
  const github = refusalKeys({ ...target, forge: 'github' });
  t.same(github, { repo: 'repo:github:acme/shop', deployment: `deployment:github|acme|shop|preview-pr-42|${SHA}|shop` });
  t.same(refusalKeys({ ...target, forge: 'forgejo' }), { repo: REPO_KEY, deployment: DEPLOYMENT_KEY });
  // GitHub's own 404 of the same repository blocks only GitHub's key.
  const r = githubRefusalOf(new GitHubCallError('Not Found', 404, 'Not Found', 'createDeployment'), target, 'token', NOW);
  t.equal(r?.key, 'repo:github:acme/shop');
  t.not(r?.key, forgejoRefusalOf(answered(404), target, NOW)?.key);
  t.end();
});
