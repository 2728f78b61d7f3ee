import t from 'tap';
import {
  gitlabEntryAllows,
  gitlabProjectAllowed,
  gitlabProjectOf,
  parseGitLabUrl,
  projectId,
  type GitLabLocation,
} from '../../../src/forges/gitlab/gitlab-url.js';

const location = (value: string): GitLabLocation => {
  const r = parseGitLabUrl(value);
  if ('problem' in r) throw new Error(r.problem);
  return r;
};

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

t.test('project of a source URL: nested groups, .git, web tails, ssh forms, sub-path installs; other hosts undefined', (t) => {
  const root = location('https://gitlab.example.com');
  const sub = location('https://example.com/gitlab');
  const rows: [GitLabLocation, string, string | RegExp | undefined][] = [
    [root, 'https://gitlab.example.com/platform/team/app', 'platform/team/app'],
    [root, 'https://GitLab.example.com/platform/team/app.git', 'platform/team/app'],
    [root, 'https://gitlab.example.com/platform/team/app/-/tree/main', 'platform/team/app'],
    [root, 'ssh://git@gitlab.example.com:2222/platform/app.git', 'platform/app'],
    [root, 'git@gitlab.example.com:a/b/c/d.git', 'a/b/c/d'],
    [root, 'https://gitlab.example.com/solo', /names no group\/project/],
    [root, 'https://gitlab.example.com/platform/-bad/app', /"-bad"/],
    [root, `https://gitlab.example.com/${Array.from({ length: 22 }, (_, i) => `g${i}`).join('/')}`, /more than 20 levels/],
    [root, 'https://github.com/platform/app', undefined],
    [root, 'not a url', /is not a URL/],
    [sub, 'https://example.com/gitlab/platform/team/app.git', 'platform/team/app'],
    [sub, 'https://example.com/other/platform/app', /is not below https:\/\/example.com\/gitlab/],
    [sub, 'git@example.com:platform/app.git', 'platform/app'],
  ];
  for (const [loc, value, want] of rows) {
    const got = gitlabProjectOf(loc, value);
    if (want instanceof RegExp) t.match(got, { error: want }, value);
    else t.equal(got, want, value);
  }
  t.equal(projectId('platform/team/app'), 'platform%2Fteam%2Fapp');
  t.end();
});

t.test('ALLOWED_REPOSITORIES for GitLab: host/group/* covers subgroups, host/group/sub/project one project', (t) => {
  const loc = location('https://gitlab.example.com:8443/gitlab');
  const rows: [string, string, boolean][] = [
    ['gitlab.example.com/platform/*', 'platform/app', true],
    ['gitlab.example.com/platform/*', 'platform/team/app', true],
    ['gitlab.example.com/platform/*', 'platformx/app', false],
    ['gitlab.example.com/platform/*', 'other/platform/app', false],
    ['gitlab.example.com:8443/platform/team/*', 'platform/team/deep/app', true],
    ['gitlab.example.com/platform/team/*', 'platform/app', false],
    ['gitlab.example.com/platform/team/app', 'platform/team/app', true],
    ['gitlab.example.com/platform/team/app', 'platform/team/app2', false],
    ['gitlab.example.com/platform/team/app', 'platform/team/app/sub', false],
    ['GitLab.Example.com/Platform/*', 'platform/App', true],
    ['platform/*', 'platform/team/app', true],
    ['platform/app', 'platform/app', true],
    ['platform/app', 'platform/team/app', false],
    ['github.com/platform/app', 'platform/app', false],
    ['forgejo.example.com/platform/*', 'platform/app', false],
    ['gitlab.example.com/*', 'platform/app', false],
  ];
  for (const [entry, path, want] of rows) t.equal(gitlabEntryAllows(entry, loc, path), want, `${entry} ~ ${path}`);
  t.ok(gitlabProjectAllowed([], loc, 'any/project'), 'an empty list allows every project');
  t.notOk(gitlabProjectAllowed(['github.com/platform/app'], loc, 'platform/app'));
  t.end();
});
