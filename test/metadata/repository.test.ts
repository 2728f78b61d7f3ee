import t from 'tap';
import { parseCommit, parseRepository, webHostOf } from '../../src/metadata/repository.js';

const ok = (owner: string, repo: string) => ({ owner, repo });

t.test('parseRepository on github.com', (t) => {
  const rows: Array<[string, { owner: string; repo: string } | RegExp]> = [
    ['https://github.com/stefanprodan/podinfo', ok('stefanprodan', 'podinfo')],
    ['https://github.com/stefanprodan/podinfo.git', ok('stefanprodan', 'podinfo')],
    ['https://github.com/stefanprodan/podinfo/', ok('stefanprodan', 'podinfo')],
    ['https://github.com/stefanprodan/podinfo.git/', ok('stefanprodan', 'podinfo')],
    ['https://GitHub.com/Org/App', ok('Org', 'App')],
    ['https://github.com/org/app?tab=readme', ok('org', 'app')],
    ['https://github.com/org/app#readme', ok('org', 'app')],
    ['http://github.com/org/app', ok('org', 'app')],
    ['git@github.com:fluxcd/flux2.git', ok('fluxcd', 'flux2')],
    ['git@github.com:fluxcd/flux2', ok('fluxcd', 'flux2')],
    ['ssh://git@github.com/fluxcd/flux2', ok('fluxcd', 'flux2')],
    ['ssh://git@github.com:22/fluxcd/flux2.git', ok('fluxcd', 'flux2')],
    ['git+ssh://git@github.com/fluxcd/flux2.git', ok('fluxcd', 'flux2')],
    ['org/app', ok('org', 'app')],
    ['  org/app  ', ok('org', 'app')],
    ['my-org/my_app.v2', ok('my-org', 'my_app.v2')],
    ['org/app.git', ok('org', 'app')],
    ['https://gitlab.com/org/app', /"https:\/\/gitlab.com\/org\/app" is not on github.com/],
    ['git@gitlab.com:org/app.git', /is not on github.com/],
    ['ssh://git@bitbucket.org/org/app', /is not on github.com/],
    ['https://github.com.evil.example/org/app', /is not on github.com/],
    ['https://ghe.example.com/org/app', /is not on github.com/],
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
    const r = parseRepository(value, 'github.com');
    if (want instanceof RegExp) {
      t.ok('error' in r, `${JSON.stringify(value)}: refused`);
      if ('error' in r) t.match(r.error, want, `${JSON.stringify(value)}: reason`);
    } else t.same(r, want, JSON.stringify(value));
  }
  t.end();
});

t.test('parseRepository on a GitHub Enterprise Server host', (t) => {
  const host = 'ghe.example.com';
  t.same(parseRepository('https://ghe.example.com/platform/api.git', host), ok('platform', 'api'));
  t.same(parseRepository('https://GHE.example.com/platform/api', host), ok('platform', 'api'));
  t.same(parseRepository('git@ghe.example.com:platform/api.git', host), ok('platform', 'api'));
  t.same(parseRepository('ssh://git@ghe.example.com/platform/api', host), ok('platform', 'api'));
  t.same(parseRepository('platform/api', host), ok('platform', 'api'));
  t.same(parseRepository('https://github.com/platform/api', host), {
    error: '"https://github.com/platform/api" is not on ghe.example.com',
  });
  t.same(
    parseRepository('https://ghe.example.com/platform/api', 'GHE.EXAMPLE.COM'),
    ok('platform', 'api'),
    'host compared case-insensitively',
  );
  t.end();
});

t.test('webHostOf', (t) => {
  const rows: Array<[string, string]> = [
    ['https://api.github.com', 'github.com'],
    ['https://api.github.com/', 'github.com'],
    ['https://API.GitHub.com', 'github.com'],
    ['https://ghe.example.com/api/v3', 'ghe.example.com'],
    ['https://ghe.example.com:8443/api/v3/', 'ghe.example.com'],
    ['http://127.0.0.1:40123', '127.0.0.1'],
  ];
  for (const [url, want] of rows) t.equal(webHostOf(url), want, url);
  t.throws(() => webHostOf('api.github.com'), 'a host without scheme is not a URL');
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
