import t from 'tap';
import { ForgeError } from '../../../src/common/errors.js';
import { GitLabError } from '../../../src/forges/gitlab/gitlab-error.js';
import { AmbiguousRecovery } from '../../../src/forges/gitlab/gitlab-recovery.js';
import { gitlabRefusalOf, keepsProvisional } from '../../../src/forges/gitlab/gitlab-refusal.js';
import { NoRefFound } from '../../../src/forges/gitlab/gitlab-refs.js';
import { REFUSAL_RETRY_MS } from '../../../src/lifecycle/refusal.js';

const NOW = 1_750_000_000_000;
const T = { forge: 'gitlab', owner: 'platform/team', repo: 'app', environment: 'staging', sha: 'a'.repeat(40), deploymentName: 'app' };

/** A GitLabError as the side hands it on: a ForgeError with the GitLabError as its cause. */
function failure(status: number | undefined, message?: string, retryAt?: number): ForgeError {
  const cause = new GitLabError(`create deployment: ${status}`, status, {
    operation: 'createDeployment',
    ...(message === undefined ? {} : { gitlabMessage: message }),
    ...(retryAt === undefined ? {} : { retryAt }),
  });
  return new ForgeError(cause.message, status, {
    cause,
    operation: 'createDeployment',
    ...(message === undefined ? {} : { forgeMessage: message }),
  });
}

t.test('gitlabRefusalOf: 403/404 refuse the project for an hour, 400 unknown commit the commit, retryable ones nothing', (t) => {
  const rows: Array<[string, ForgeError, { key?: RegExp; code?: string; reason?: RegExp } | undefined]> = [
    ['403', failure(403, '403 Forbidden'), { key: /^repo:gitlab:platform\/team\/app$/, code: 'gitlab_forbidden' }],
    ['404', failure(404, '404 Project Not Found'), { key: /^repo:gitlab:/, code: 'gitlab_not_found' }],
    ['400 unknown commit', failure(400, 'sha: commit does not exist'), { key: /^deployment:/, code: 'gitlab_unknown_commit' }],
    [
      '400 unknown ref',
      failure(400, 'ref The branch or tag does not exist'),
      { key: /^deployment:/, code: 'gitlab_unknown_commit', reason: /no such branch or tag .*github-deployment-bridge\.io\/ref/ },
    ],
    ['400 other', failure(400, 'status: invalid transition'), { key: /^deployment:/, code: 'gitlab_rejected' }],
    ['401', failure(401, '401 Unauthorized'), undefined],
    ['429 with a time', failure(429, undefined, NOW + 30_000), undefined],
    ['502', failure(502), undefined],
    ['network', failure(undefined), undefined],
  ];
  for (const [name, err, want] of rows) {
    const r = gitlabRefusalOf(err, T, NOW);
    if (want === undefined) t.equal(r, undefined, `${name}: retried, not refused`);
    else t.match(r, { ...want, forge: 'gitlab', retryAt: NOW + REFUSAL_RETRY_MS }, name);
  }
  t.equal(gitlabRefusalOf(new Error('x'), T, NOW), undefined, 'not a forge error');
  t.end();
});

t.test('an ambiguous crash recovery refuses the one deployment, its provisional row kept', (t) => {
  const err = new AmbiguousRecovery('staging', T.sha, [9, 7]);
  t.match(gitlabRefusalOf(err, T, NOW), {
    forge: 'gitlab',
    key: /^deployment:gitlab\|/,
    code: 'gitlab_ambiguous_recovery',
    status: null,
    reason: /2 deployments of aaaaaaa to staging by this token's user \(9, 7\).*its own environment/,
    retryAt: NOW + REFUSAL_RETRY_MS,
  });
  t.equal(keepsProvisional(err), true);
  t.equal(keepsProvisional(failure(400, 'x')), false);
  t.end();
});

t.test('a commit no branch holds: the one deployment refused, with what to annotate', (t) => {
  const err = new NoRefFound('platform/team/app@aaaaaaa: no branch holds the commit: set the github-deployment-bridge.io/ref annotation');
  t.match(gitlabRefusalOf(err, T, NOW), { code: 'gitlab_no_ref', key: /^deployment:gitlab\|/, reason: /no branch holds the commit/ });
  t.equal(keepsProvisional(err), false, 'nothing was created: the row goes');
  t.end();
});
