import t, { type Test } from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';

const BASE = { WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes', CLUSTER_NAME: 'prod-eu-1' };
const PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const files: Record<string, string> = { '/run/secrets/app.pem': PEM, '/run/secrets/garbage.pem': 'not a key' };
const readFile = (p: string): Buffer => {
  if (p in files) return Buffer.from(files[p]!);
  throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
};

function problemsOf(t: Test, env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env, readFile);
  } catch (err) {
    t.type(err, ConfigError);
    return (err as ConfigError).problems;
  }
  t.fail('accepted');
  return [];
}

t.test('a token or an App, exactly one', (t) => {
  t.same(loadConfig({ ...BASE, GITHUB_TOKEN: 'ghp_x' }, readFile).githubAuth, { kind: 'token', token: 'ghp_x' });
  t.same(loadConfig({ ...BASE, GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY: PEM }, readFile).githubAuth, {
    kind: 'app',
    appId: 123,
    privateKey: PEM.trim(),
  });
  t.same(
    loadConfig(
      { ...BASE, GITHUB_APP_ID: '123', GITHUB_APP_PRIVATE_KEY_PATH: '/run/secrets/app.pem', GITHUB_APP_INSTALLATION_ID: '987' },
      readFile,
    ).githubAuth,
    { kind: 'app', appId: 123, privateKey: PEM, installationId: 987 },
  );
  const escaped = PEM.trim().replace(/\n/g, '\\n');
  t.equal(
    loadConfig({ ...BASE, GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY: escaped }, readFile).githubAuth?.kind,
    'app',
    'a key with \\n escapes (env files)',
  );
  const rows: Array<[string, NodeJS.ProcessEnv, RegExp[]]> = [
    [
      'neither',
      {},
      [
        /^no forge is configured: set credentials for at least one: GitHub \(GITHUB_TOKEN .* or GITHUB_APP_ID with GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH/,
      ],
    ],
    [
      'both',
      { GITHUB_TOKEN: 'x', GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY: PEM },
      [/^set either GITHUB_TOKEN or a GitHub App .*not both/],
    ],
    [
      'App id without a key',
      { GITHUB_APP_ID: '1' },
      [/^GITHUB_APP_PRIVATE_KEY or GITHUB_APP_PRIVATE_KEY_PATH is required with GITHUB_APP_ID/],
    ],
    ['key without an App id', { GITHUB_APP_PRIVATE_KEY: PEM }, [/^GITHUB_APP_ID is required with a GitHub App private key/]],
    [
      'both key forms',
      { GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY: PEM, GITHUB_APP_PRIVATE_KEY_PATH: '/run/secrets/app.pem' },
      [/^set only one of GITHUB_APP_PRIVATE_KEY and GITHUB_APP_PRIVATE_KEY_PATH/],
    ],
    [
      'bad App id and installation id',
      { GITHUB_APP_ID: 'my-app', GITHUB_APP_PRIVATE_KEY: PEM, GITHUB_APP_INSTALLATION_ID: '-3' },
      [/^GITHUB_APP_ID="my-app" must be the App's numeric id/, /^GITHUB_APP_INSTALLATION_ID="-3" must be a numeric installation id/],
    ],
    [
      'missing key file',
      { GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY_PATH: '/nope.pem' },
      [/^GITHUB_APP_PRIVATE_KEY_PATH="\/nope.pem" cannot be read \(ENOENT\)/],
    ],
    [
      'not a key',
      { GITHUB_APP_ID: '1', GITHUB_APP_PRIVATE_KEY_PATH: '/run/secrets/garbage.pem' },
      [/^GITHUB_APP_PRIVATE_KEY_PATH="\/run\/secrets\/garbage.pem" is not a PEM private key of the App/],
    ],
  ];
  for (const [name, env, want] of rows) {
    const problems = problemsOf(t, { ...BASE, ...env });
    t.equal(problems.length, want.length, `${name}: ${problems.join(' | ')}`);
    for (const re of want)
      t.ok(
        problems.some((p) => re.test(p)),
        `${name}: ${re.source}`,
      );
    t.notOk(problems.join('\n').includes('BEGIN RSA'), `${name}: the key is never echoed`);
  }
  t.end();
});

t.test('GitHub problems are reported with the others at once', (t) => {
  const problems = problemsOf(t, { CLUSTER_NAME: 'x', GITHUB_APP_ID: 'abc', ALLOWED_REPOSITORIES: 'acme', REPOSITORY_SOURCE: 'labels' });
  for (const re of [
    /^WEBHOOK_TOKEN/,
    /^GITHUB_APP_ID="abc"/,
    /^GITHUB_APP_PRIVATE_KEY or/,
    /^ALLOWED_REPOSITORIES: "acme" is not owner\/repo, owner\/\*, host\[:port\]\/owner\/repo or host\[:port\]\/owner\/\*/,
    /^REPOSITORY_SOURCE="labels" must be annotation or any/,
  ]) {
    t.ok(
      problems.some((p) => re.test(p)),
      re.source,
    );
  }
  t.equal(problems.length, 5);
  t.end();
});
