import t from 'tap';
import { parseGitLabUrl, projectId } from '../../../src/forges/gitlab/gitlab-url.js';

t.test('GITLAB_URL: root or sub-path, trailing slashes, an /api/v4 slip; refused forms say why', (t) => {
  t.same(parseGitLabUrl('https://gitlab.com'), {
    webUrl: 'https://gitlab.com',
    apiBase: 'https://gitlab.com/api/v4',
    host: 'gitlab.com',
    hostname: 'gitlab.com',
    basePath: '',
  });
  t.same(parseGitLabUrl(' https://Example.com:8443/gitlab/// '), {
    webUrl: 'https://example.com:8443/gitlab',
    apiBase: 'https://example.com:8443/gitlab/api/v4',
    host: 'example.com:8443',
    hostname: 'example.com',
    basePath: '/gitlab',
  });
  t.match(parseGitLabUrl('https://example.com/gitlab/api/v4/'), { webUrl: 'https://example.com/gitlab', basePath: '/gitlab' });
  const problems: [string, RegExp][] = [
    ['gitlab.com', /not an absolute URL/],
    ['ftp://gitlab.com', /https or http/],
    ['https://me:glpat-secret@gitlab.com', /must not hold credentials/],
    ['https://gitlab.com/?private_token=x', /query or fragment/],
  ];
  for (const [value, problem] of problems) {
    const r = parseGitLabUrl(value);
    t.match(r, { problem }, value);
    t.notMatch(JSON.stringify(r), /secret|private_token=x/, 'the problem never repeats a secret');
  }
  t.end();
});

t.test("a project's id in API paths: its full path URL-encoded", (t) => {
  t.equal(projectId('platform/team/app'), 'platform%2Fteam%2Fapp');
  t.equal(projectId('acme/web'), 'acme%2Fweb');
  t.end();
});
