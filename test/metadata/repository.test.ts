import t from 'tap';
import { parseCommit, parseRepository, parseRepository as parse } from '../../src/metadata/repository.js';

const ok = (owner: string, repo: string, host?: string) => ({ owner, repo, ...(host === undefined ? {} : { host }) });

t.test("parseRepository: owner/repo and the host of a URL (which forge is routeRepository's call)", (t) => {
  const rows: Array<[string, { owner: string; repo: string; host?: string } | RegExp]> = [
    ['https://github.com/stefanprodan/podinfo', ok('stefanprodan', 'podinfo', 'github.com')],
    ['https://github.com/stefanprodan/podinfo.git', ok('stefanprodan', 'podinfo', 'github.com')],
    ['https://github.com/stefanprodan/podinfo/', ok('stefanprodan', 'podinfo', 'github.com')],
    ['https://github.com/stefanprodan/podinfo.git/', ok('stefanprodan', 'podinfo', 'github.com')],
    ['https://GitHub.com/Org/App', ok('Org', 'App', 'github.com')],
    ['https://github.com/org/app?tab=readme', ok('org', 'app', 'github.com')],
    ['https://github.com/org/app#readme', ok('org', 'app', 'github.com')],
    ['http://github.com/org/app', ok('org', 'app', 'github.com')],
    ['git@github.com:fluxcd/flux2.git', ok('fluxcd', 'flux2', 'github.com')],
    ['git@github.com:fluxcd/flux2', ok('fluxcd', 'flux2', 'github.com')],
    ['ssh://git@github.com/fluxcd/flux2', ok('fluxcd', 'flux2', 'github.com')],
    ['ssh://git@github.com:22/fluxcd/flux2.git', ok('fluxcd', 'flux2', 'github.com')],
    ['git+ssh://git@github.com/fluxcd/flux2.git', ok('fluxcd', 'flux2', 'github.com')],
    ['https://GHE.example.com/platform/api.git', ok('platform', 'api', 'ghe.example.com')],
    ['https://forgejo.example.com:3000/platform/api', ok('platform', 'api', 'forgejo.example.com')],
    ['ssh://git@forgejo.example.com:2222/platform/api.git', ok('platform', 'api', 'forgejo.example.com')],
    ['https://github.com.evil.example/org/app', ok('org', 'app', 'github.com.evil.example')],
    ['org/app', ok('org', 'app')],
    ['  org/app  ', ok('org', 'app')],
    ['my-org/my_app.v2', ok('my-org', 'my_app.v2')],
    ['org/app.git', ok('org', 'app')],
    ['https://github.com/org', /does not name owner\/repo/],
    ['https://github.com/org/app/tree/main', /does not name owner\/repo/],
    ['https://github.com/', /does not name owner\/repo/],
    ['org/app/extra', /does not name owner\/repo/],
    ['github.com/org/app', /does not name owner\/repo/],
    ['org', /does not name owner\/repo/],
    ['', /does not name owner\/repo/],
    ['   ', /does not name owner\/repo/],
    ['org name/app', /does not name owner\/repo/],
    ['org/..', /does not name owner\/repo/],
    ['org/.', /does not name owner\/repo/],
    ['org//app', /does not name owner\/repo/],
    ['https://[::1', /is not a URL/],
  ];
  for (const [value, want] of rows) {
    const r = parseRepository(value);
    if (want instanceof RegExp) {
      t.ok('error' in r, `${JSON.stringify(value)}: refused`);
      if ('error' in r) t.match(r.error, want, `${JSON.stringify(value)}: reason`);
    } else t.same(r, want, JSON.stringify(value));
  }
  t.end();
});

t.test('parseCommit', (t) => {
  const sha = '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
  const rows: Array<[string, string | undefined]> = [
    [sha, sha],
    [sha.toUpperCase(), sha],
    [` ${sha}\n`, sha],
    ['07a684d', '07a684d'],
    ['07a684', undefined],
    [`${sha}0`, undefined],
    ['g7a684d59d1bc9a58e0c0d07ed480812b2b9a29e', undefined],
    [`main@sha1:${sha}`, undefined],
    [`sha1:${sha}`, undefined],
    ['v1.2.3', undefined],
    ['0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', undefined],
    ['', undefined],
  ];
  for (const [value, want] of rows) t.equal(parseCommit(value), want, JSON.stringify(value));
  t.end();
});

t.test('parseRepository: a URL on a nested host may name nested groups (GitLab); elsewhere, and bare, owner/repo', (t) => {
  const parseRepository = (v: string) => parse(v, ['gitlab.example.com']);
  t.match(parse('https://gitlab.example.com/platform/team/app'), { error: /does not name owner\/repo/ }, 'not a nested host');
  t.match(parseRepository('https://github.com/platform/team/app'), { error: /does not name owner\/repo/ });
  t.same(parseRepository('https://gitlab.example.com/platform/team/app.git'), {
    owner: 'platform/team',
    repo: 'app',
    host: 'gitlab.example.com',
  });
  t.same(parseRepository('git@gitlab.example.com:platform/team/app.git'), {
    owner: 'platform/team',
    repo: 'app',
    host: 'gitlab.example.com',
  });
  t.same(parseRepository('https://gitlab.example.com/platform/team/app/-/tree/main'), {
    owner: 'platform/team',
    repo: 'app',
    host: 'gitlab.example.com',
  });
  t.match(parseRepository('platform/team/app'), { error: /does not name owner\/repo/ });
  t.end();
});
