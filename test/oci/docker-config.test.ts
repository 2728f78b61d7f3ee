import t from 'tap';
import { lookupCredentials, parseDockerConfigJson, parseDockercfg, parseKeyringKey } from '../../src/oci/docker-config.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const auth = (user: string, pass = 'pw') => ({ auth: b64(`${user}:${pass}`) });

t.test('keys: scheme, path and Docker Hub names', (t) => {
  const cases: Array<[string, { host: string; path: string } | undefined]> = [
    ['https://index.docker.io/v1/', { host: 'docker.io', path: '' }],
    ['index.docker.io', { host: 'docker.io', path: '' }],
    ['docker.io', { host: 'docker.io', path: '' }],
    ['registry-1.docker.io', { host: 'docker.io', path: '' }],
    ['https://registry-1.docker.io/v2/', { host: 'docker.io', path: '' }],
    ['ghcr.io', { host: 'ghcr.io', path: '' }],
    ['https://GHCR.io', { host: 'ghcr.io', path: '' }],
    ['http://registry.local:5000', { host: 'registry.local:5000', path: '' }],
    ['registry.local:5000/', { host: 'registry.local:5000', path: '' }],
    ['ghcr.io/acme', { host: 'ghcr.io', path: 'acme' }],
    ['https://ghcr.io/acme/team/', { host: 'ghcr.io', path: 'acme/team' }],
    ['*.dkr.ecr.eu-west-1.amazonaws.com', { host: '*.dkr.ecr.eu-west-1.amazonaws.com', path: '' }],
    ['', undefined],
    ['https://', undefined],
    ['user@host', undefined],
  ];
  for (const [key, want] of cases) t.strictSame(parseKeyringKey(key), want, JSON.stringify(key));
  t.end();
});

t.test('config.json: auth, username/password, unusable entries and helpers', (t) => {
  const text = JSON.stringify({
    auths: {
      'https://index.docker.io/v1/': auth('hub-user', 'p:with:colons'),
      'ghcr.io': { username: 'gh-user', password: 'ghp_x' },
      'quay.io': { auth: b64('no-colon') },
      'broken.example': { email: 'a@b.c' },
      'token.example': { identitytoken: 'xyz' },
      'nothing.example': 'string',
    },
    credsStore: 'desktop',
  });
  const { keyring, problems } = parseDockerConfigJson(text, 'cfg');
  t.strictSame(keyring, [
    { host: 'docker.io', path: '', credentials: { username: 'hub-user', password: 'p:with:colons' } },
    { host: 'ghcr.io', path: '', credentials: { username: 'gh-user', password: 'ghp_x' } },
  ]);
  t.equal(problems.length, 5);
  t.match(problems.join('\n'), /"quay\.io" has an "auth" that is not base64 of user:password/);
  t.match(problems.join('\n'), /"broken\.example" has neither "auth" nor "username" and "password"/);
  t.match(problems.join('\n'), /identity tokens are not supported/);
  t.match(problems.join('\n'), /"nothing\.example" is not an object/);
  t.match(problems.join('\n'), /credential helpers .* are not supported/);
  t.notMatch(problems.join('\n'), /pw|ghp_x|p:with/, 'no secret in any message');

  t.strictSame(parseDockerConfigJson('{}', 'cfg'), { keyring: [], problems: [] }, 'no auths: empty keyring');
  t.throws(
    () => parseDockerConfigJson('{"auths": {"a": {"auth": "c2VjcmV0"', 'cfg'),
    { message: 'cfg is not valid JSON' },
    'the parser message (which quotes the text) is not passed on',
  );
  t.throws(() => parseDockerConfigJson('[]', 'cfg'), /cfg is not a JSON object/);
  t.throws(() => parseDockerConfigJson('{"auths": []}', 'cfg'), /"auths" is not an object/);
  t.end();
});

t.test('.dockercfg: the legacy map without the "auths" wrapper', (t) => {
  const { keyring, problems } = parseDockercfg(
    JSON.stringify({ 'https://index.docker.io/v1/': { ...auth('old'), email: 'x@y.z' } }),
    'legacy',
  );
  t.strictSame(keyring, [{ host: 'docker.io', path: '', credentials: { username: 'old', password: 'pw' } }]);
  t.strictSame(problems, []);
  t.end();
});

t.test('lookup: host match, Docker Hub, ports, path prefixes, wildcards, precedence', (t) => {
  const { keyring } = parseDockerConfigJson(
    JSON.stringify({
      auths: {
        'index.docker.io': auth('hub'),
        'ghcr.io': auth('gh-all'),
        'ghcr.io/acme': auth('gh-acme'),
        'ghcr.io/acme/secret': auth('gh-secret'),
        'registry.local:5000': auth('local-5000'),
        '*.example.com': auth('wild'),
        'exact.example.com': auth('exact'),
        'https://dup.io': auth('first'),
        'dup.io/': auth('second'),
      },
    }),
    'cfg',
  );
  const user = (registry: string, repository: string) => lookupCredentials(keyring, registry, repository)?.username;
  const cases: Array<[string, string, string | undefined]> = [
    ['docker.io', 'library/nginx', 'hub'],
    ['ghcr.io', 'other/app', 'gh-all'],
    ['ghcr.io', 'acme/app', 'gh-acme'],
    ['ghcr.io', 'acme', 'gh-acme'],
    ['ghcr.io', 'acme-corp/app', 'gh-all'],
    ['ghcr.io', 'acme/secret/app', 'gh-secret'],
    ['registry.local:5000', 'a/b', 'local-5000'],
    ['registry.local', 'a/b', undefined],
    ['registry.local:5001', 'a/b', undefined],
    ['eu.example.com', 'a', 'wild'],
    ['exact.example.com', 'a', 'exact'],
    ['a.b.example.com', 'a', undefined],
    ['example.com', 'a', undefined],
    ['dup.io', 'x', 'first'],
    ['quay.io', 'x', undefined],
  ];
  for (const [registry, repository, want] of cases) t.equal(user(registry, repository), want, `${registry}/${repository}`);
  t.equal(lookupCredentials([], 'docker.io', 'library/nginx'), undefined);
  t.end();
});

t.test('wildcards: a star matches a run inside one label, several stars per label, no regex syntax', (t) => {
  const matches = (pattern: string, registry: string) => {
    const { keyring } = parseDockerConfigJson(JSON.stringify({ auths: { [pattern]: auth('w') } }), 'cfg');
    return lookupCredentials(keyring, registry, 'a/b') !== undefined;
  };
  const cases: Array<[string, string, boolean]> = [
    ['*.example.com', 'eu.example.com', true],
    ['*.example.com', 'a.b.example.com', false],
    ['*.example.com', 'example.com', false],
    ['eu-*.example.com', 'eu-west.example.com', true],
    ['eu-*.example.com', 'us-west.example.com', false],
    ['*-west-*.example.com', 'eu-west-1.example.com', true],
    ['*-west-*.example.com', 'eu-east-1.example.com', false],
    ['a*b*c.example.com', 'abc.example.com', true],
    ['a*b*c.example.com', 'axxbyyc.example.com', true],
    ['a*b*c.example.com', 'acb.example.com', false],
    ['ab*ba.example.com', 'aba.example.com', false],
    ['ab*ba.example.com', 'abba.example.com', true],
    ['**.example.com', 'x.example.com', true],
    ['*.*.example.com', 'a.b.example.com', true],
    ['*.dkr.ecr.*.amazonaws.com', '1234.dkr.ecr.eu-west-1.amazonaws.com', true],
    ['*.dkr.ecr.*.amazonaws.com', '1234.dkr.ecr.eu.west.amazonaws.com', false],
    ['reg(x)+.example.com', 'regx.example.com', false],
    ['r+g*.example.com', 'rrg.example.com', false],
    ['r+g*.example.com', 'r+g1.example.com', true],
    ['*.example.com:5000', 'eu.example.com:5000', true],
    ['*.example.com:5000', 'eu.example.com', false],
  ];
  for (const [pattern, registry, want] of cases) t.equal(matches(pattern, registry), want, `${pattern} ~ ${registry}`);
  t.end();
});

t.test('wildcards: twenty stars against a 30-character first label answer (they used to backtrack for minutes)', (t) => {
  const { keyring } = parseDockerConfigJson(JSON.stringify({ auths: { [`${'*'.repeat(20)}x.example`]: auth('stars') } }), 'cfg');
  const label = 'a'.repeat(30);
  t.equal(lookupCredentials(keyring, `${label}.example`, 'app'), undefined, 'no x at the end: no match');
  t.equal(lookupCredentials(keyring, `${label}x.example`, 'app')?.username, 'stars', 'x at the end: a match');
  t.end();
});
