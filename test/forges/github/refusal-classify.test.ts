import t from 'tap';
import { GitHubError } from '../../../src/forges/github/github-error.js';
import { GitHubCallError, type GitHubOperation } from '../../../src/forges/github/call-error.js';
import { DeploymentDeleted, deletedOnGitHub, githubRefusalOf } from '../../../src/forges/github/refusal-classify.js';
import { REFUSAL_RETRY_MS, refusalKeys } from '../../../src/lifecycle/refusal.js';

const NOW = 1_000_000;
const target = {
  forge: 'github',
  owner: 'Acme',
  repo: 'Shop',
  environment: 'staging',
  sha: 'abc1234def5678abc1234def5678abc1234def56',
  deploymentName: 'shop',
};
const call = (status: number | undefined, op: GitHubOperation | undefined, said = 'x', retryAt?: number) =>
  new GitHubCallError(`${status} ${said}`, status, said, op, retryAt === undefined ? {} : { retryAt });

t.test('keys: the repository (case-insensitive) and the deployment identity', (t) => {
  t.same(refusalKeys(target), { repo: 'repo:github:acme/shop', deployment: `deployment:github|acme|shop|staging|${target.sha}|shop` });
  t.end();
});

t.test('transient failures are not refusals', (t) => {
  for (const [name, err] of [
    ['5xx', call(502, 'createDeployment')],
    ['timeout', call(undefined, 'createStatus')],
    ['401', call(401, 'listDeployments')],
    ['429', call(429, 'createStatus')],
    ['rate-limited 403', call(403, 'createStatus', 'API rate limit exceeded', NOW + 1)],
    ['not a GitHub error', new Error('boom')],
    ['GitHubError without status', new GitHubError('paused')],
  ] as const)
    t.equal(githubRefusalOf(err, target, 'token', NOW), undefined, name);
  t.end();
});

t.test('refusals: what is blocked, the class, and a reason a person can act on', (t) => {
  const rows: Array<[string, unknown, 'token' | 'app', string, string, RegExp]> = [
    [
      'App not installed',
      call(404, 'installation'),
      'app',
      'repo',
      'github_not_installed',
      /^App not installed on Acme\/Shop: install the GitHub App on Acme with access to Shop$/,
    ],
    [
      'installation gone',
      call(404, 'installationToken'),
      'app',
      'repo',
      'github_not_installed',
      /^App installation for Acme\/Shop not found: reinstall the App or fix GITHUB_APP_INSTALLATION_ID$/,
    ],
    [
      'token cannot see the repo',
      call(404, 'listDeployments'),
      'token',
      'repo',
      'github_not_found',
      /^Acme\/Shop not found, or GITHUB_TOKEN cannot see it: give the token access to the repository$/,
    ],
    [
      'installation cannot see the repo',
      call(404, 'createDeployment'),
      'app',
      'repo',
      'github_not_found',
      /^Acme\/Shop not found, or the App installation cannot see it: add Shop to the App's installation$/,
    ],
    [
      'deployment deleted on GitHub',
      call(404, 'createStatus'),
      'token',
      'deployment',
      'github_not_found',
      /^the deployment of abc1234 in Acme\/Shop no longer exists on GitHub \(404\)$/,
    ],
    [
      'no permission',
      call(403, 'createDeployment', 'Resource not accessible by integration'),
      'app',
      'repo',
      'github_forbidden',
      /^GitHub refused access to Acme\/Shop \(403 Resource not accessible by integration\): give the GitHub App Deployments read & write on it$/,
    ],
    [
      'suspended installation',
      call(403, 'installationToken', 'This installation has been suspended'),
      'app',
      'repo',
      'github_forbidden',
      /is the installation suspended\?$/,
    ],
    [
      'permissions not accepted',
      call(422, 'installationToken', 'The permissions requested are not granted to this installation.'),
      'app',
      'repo',
      'github_forbidden',
      /lacks Deployments write or Metadata read/,
    ],
    [
      'commit not in the repository',
      call(422, 'createDeployment', 'No ref found for: abc1234def'),
      'token',
      'deployment',
      'github_invalid',
      /^commit abc1234 not found in Acme\/Shop: push it, or fix the image's revision label or the commit annotation$/,
    ],
    [
      'other validation failure',
      call(422, 'createDeployment', 'Validation Failed'),
      'token',
      'deployment',
      'github_invalid',
      /^GitHub refused the deployment of abc1234 to Acme\/Shop \(422 Validation Failed\)$/,
    ],
    [
      'conflict',
      call(409, 'createDeployment', 'Conflict merging main into topic'),
      'token',
      'deployment',
      'github_conflict',
      /^GitHub answered 409 for the deployment of abc1234 to Acme\/Shop: Conflict merging main into topic$/,
    ],
    [
      'gone',
      call(410, 'listStatuses', 'Gone'),
      'token',
      'deployment',
      'github_rejected',
      /^GitHub refused listStatuses for Acme\/Shop \(410 Gone\)$/,
    ],
    [
      'plain GitHubError 422',
      new GitHubError('GitHub answered 202 instead of creating a deployment', 422),
      'token',
      'deployment',
      'github_invalid',
      /\(422 GitHub answered 202/,
    ],
  ];
  for (const [name, err, auth, scope, code, reason] of rows) {
    const r = githubRefusalOf(err, target, auth, NOW);
    t.match(r, { key: refusalKeys(target)[scope as 'repo' | 'deployment'], code, reason, retryAt: NOW + REFUSAL_RETRY_MS }, name);
  }
  t.end();
});

t.test('deletedOnGitHub: only a 404 on the deployment itself (its statuses) says it was deleted', (t) => {
  const rows: Array<[name: string, err: unknown, deleted: boolean]> = [
    ['404 listing its statuses', call(404, 'listStatuses'), true],
    ['404 creating a status', call(404, 'createStatus'), true],
    ['404 listing deployments (the repository)', call(404, 'listDeployments'), false],
    ['404 creating a deployment', call(404, 'createDeployment'), false],
    ['404 finding the installation', call(404, 'installation'), false],
    ['422 creating a status', call(422, 'createStatus'), false],
    ['a timeout', call(undefined, 'createStatus'), false],
    ['a 404 of no known call', new GitHubError('Not Found', 404), false],
  ];
  for (const [name, err, deleted] of rows) {
    const d = deletedOnGitHub(err, target, 42);
    t.equal(d !== undefined, deleted, name);
    if (d === undefined) continue;
    t.ok(d instanceof DeploymentDeleted && d instanceof GitHubCallError, `${name}: still a GitHub 404`);
    t.match(d, { status: 404, deploymentId: 42, identity: target, operation: (err as GitHubCallError).operation, cause: err });
    t.match(d.message, /^deployment 42 was deleted on GitHub \(404 x\)$/);
  }
  t.match(githubRefusalOf(deletedOnGitHub(call(404, 'createStatus'), target, 42), target, 'app', NOW), {
    key: refusalKeys(target).deployment,
    code: 'github_not_found',
    reason: 'the deployment of abc1234 in Acme/Shop was deleted on GitHub, and so was the new one (404)',
  });
  t.end();
});
