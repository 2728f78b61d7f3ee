import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig, loadReportingConfig } from '../../src/config/load-config.js';
import { parseDuration } from '../../src/common/setting-parsers.js';
import { MIN_RESYNC_INTERVAL_MS } from '../../src/config/settings.js';

const MINIMAL = { WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes', GITHUB_TOKEN: 'ghp_test', CLUSTER_NAME: 'prod-eu-1' };

/** Runs loadConfig and returns the ConfigError's problems (fails the test when nothing is thrown). */
function problemsOf(t: Test, env: NodeJS.ProcessEnv, readFile?: (p: string) => Buffer): string[] {
  try {
    loadConfig(env, readFile);
  } catch (err) {
    t.type(err, ConfigError);
    return (err as ConfigError).problems;
  }
  t.fail('loadConfig accepted an invalid configuration');
  return [];
}

t.test('minimal valid env and defaults', (t) => {
  const c = loadConfig({ ...MINIMAL });
  t.match(c, {
    port: 8484,
    host: '0.0.0.0',
    githubAuth: { kind: 'token', token: 'ghp_test' },
    githubApiUrl: 'https://api.github.com',
    githubHost: 'github.com',
    clusterName: 'prod-eu-1',
    description: 'Deployed by Flux',
    databasePath: './data/github-deployment-bridge.db',
    resyncIntervalMs: 300_000,
    watchNamespaces: [],
    logLevel: 'info',
    registryInsecureHosts: [],
    reconcileConcurrency: 4,
  });
  t.same(c.webhookKeys.shared, Buffer.from('a-webhook-key-of-at-least-32-bytes'));
  t.same(c.watchNamespaces, []);
  t.same(c.registryInsecureHosts, []);
  for (const k of ['kubeconfig', 'environment', 'environmentUrl', 'logUrlTemplate']) t.notOk(k in c, `${k} absent`);
  t.end();
});

t.test('every variable set', (t) => {
  const c = loadConfig({
    ...MINIMAL,
    PORT: ' 9090 ',
    HOST: '127.0.0.1',
    GITHUB_API_URL: 'https://ghe.example.com/api/v3/',
    KUBECONFIG: '/etc/kube/config',
    ENVIRONMENT: 'production',
    ENVIRONMENT_URL: 'https://{name}.example.com',
    LOG_URL_TEMPLATE: 'https://logs.example.com/{namespace}/{name}?sha={sha}',
    DESCRIPTION: 'Rolled out',
    DATABASE_PATH: '/data/bridge.db',
    RESYNC_INTERVAL: '30s',
    WATCH_NAMESPACES: ' apps, flux-system ,,team-a ',
    LOG_LEVEL: 'debug',
    REGISTRY_INSECURE_HOSTS: 'registry.local:5000,127.0.0.1:5001',
    RECONCILE_CONCURRENCY: '8',
  });
  t.match(c, {
    port: 9090,
    host: '127.0.0.1',
    githubApiUrl: 'https://ghe.example.com/api/v3',
    githubHost: 'ghe.example.com',
    kubeconfig: '/etc/kube/config',
    environment: 'production',
    environmentUrl: 'https://{name}.example.com',
    logUrlTemplate: 'https://logs.example.com/{namespace}/{name}?sha={sha}',
    description: 'Rolled out',
    databasePath: '/data/bridge.db',
    resyncIntervalMs: 30_000,
    logLevel: 'debug',
    reconcileConcurrency: 8,
  });
  t.same(c.watchNamespaces, ['apps', 'flux-system', 'team-a']);
  t.same(c.registryInsecureHosts, ['registry.local:5000', '127.0.0.1:5001']);
  t.equal(
    loadConfig({ ...MINIMAL, GITHUB_API_URL: 'http://127.0.0.1:40123', ALLOW_HTTP_FORGE_URLS: 'true' }).githubApiUrl,
    'http://127.0.0.1:40123',
    'http allowed for the API with ALLOW_HTTP_FORGE_URLS (simulator, a mesh that encrypts)',
  );
  t.equal(
    loadConfig({ ...MINIMAL, GITHUB_API_URL: 'https://api.ghe.example.com', GITHUB_SERVER_URL: 'https://ghe.example.com/' }).githubHost,
    'ghe.example.com',
    'GITHUB_SERVER_URL names the web host',
  );
  t.equal(loadConfig({ ...MINIMAL, PORT: '', ENVIRONMENT: '  ' }).port, 8484, 'empty values mean unset');
  t.notOk('environment' in loadConfig({ ...MINIMAL, ENVIRONMENT: '  ' }));
  t.end();
});

t.test('every invalid value is reported at once', (t) => {
  const problems = problemsOf(t, {
    PORT: '70000',
    GITHUB_API_URL: 'ftp://example.com',
    ENVIRONMENT_URL: 'http://app.example.com',
    LOG_URL_TEMPLATE: '/logs/{name}',
    RESYNC_INTERVAL: 'abc',
    LOG_LEVEL: 'loud',
    RECONCILE_CONCURRENCY: '0',
    GITHUB_SERVER_URL: 'ghe.example.com',
  });
  const expected: RegExp[] = [
    /^WEBHOOK_TOKEN or WEBHOOK_TOKEN_FILE is required/,
    /^no forge is configured: set credentials for at least one: GitHub \(GITHUB_TOKEN/,
    /^CLUSTER_NAME is required/,
    /^PORT="70000" must be a whole number from 0 to 65535/,
    /^GITHUB_API_URL="ftp:\/\/example.com" must be an https: or http: URL/,
    /^GITHUB_SERVER_URL="ghe.example.com" is not an absolute URL/,
    /^ENVIRONMENT_URL="http:\/\/app.example.com" must be an https: URL/,
    /^LOG_URL_TEMPLATE="\/logs\/\{name\}" is not an absolute URL/,
    /^RESYNC_INTERVAL="abc" must be a duration/,
    /^LOG_LEVEL="loud" must be one of fatal, error, warn, info, debug, trace, silent/,
    /^RECONCILE_CONCURRENCY="0" must be a whole number from 1 to 64/,
  ];
  t.equal(problems.length, expected.length, 'one problem per bad variable');
  for (const re of expected)
    t.ok(
      problems.some((p) => re.test(p)),
      re.source,
    );
  t.end();
});

t.test('the error message lists every problem', (t) => {
  try {
    loadConfig({ PORT: 'x' });
    t.fail('should throw');
  } catch (err) {
    t.type(err, ConfigError);
    t.equal((err as Error).name, 'ConfigError');
    for (const p of (err as ConfigError).problems) t.ok((err as Error).message.includes(`  - ${p}`), p);
    t.equal((err as ConfigError).problems.length, 4);
  }
  t.end();
});

t.test('integers', (t) => {
  const rows: Array<[string, string, boolean]> = [
    ['PORT', '0', true],
    ['PORT', '65535', true],
    ['PORT', '-1', false],
    ['PORT', '80.5', false],
    ['PORT', 'http', false],
    ['RECONCILE_CONCURRENCY', '1', true],
    ['RECONCILE_CONCURRENCY', '64', true],
    ['RECONCILE_CONCURRENCY', '65', false],
  ];
  for (const [name, value, ok] of rows) {
    const env = { ...MINIMAL, [name]: value };
    if (ok) t.doesNotThrow(() => loadConfig(env), `${name}=${value}`);
    else t.match(problemsOf(t, env), [new RegExp(`^${name}="${value.replace('.', '\\.')}"`)], `${name}=${value}`);
  }
  t.end();
});

t.test('webhook key', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'token');
  writeFileSync(file, 'from-a-secret-of-thirty-two-bytes-or-more\n');
  t.same(
    loadConfig({ ...MINIMAL, WEBHOOK_TOKEN: undefined, WEBHOOK_TOKEN_FILE: file }).webhookKeys.shared,
    Buffer.from('from-a-secret-of-thirty-two-bytes-or-more\n'),
    'file read byte for byte, trailing newline kept',
  );
  const binary = join(dir, 'binary');
  writeFileSync(binary, Buffer.from([0, 1, 0xfe, 0xff, ...Array<number>(32).fill(0x2a), 0x0a]));
  t.same(
    loadConfig({ ...MINIMAL, WEBHOOK_TOKEN: undefined, WEBHOOK_TOKEN_FILE: binary }).webhookKeys.shared,
    Buffer.from([0, 1, 0xfe, 0xff, ...Array<number>(32).fill(0x2a), 0x0a]),
    'binary key',
  );
  t.same(
    loadConfig({ ...MINIMAL, WEBHOOK_TOKEN: ' spaced key of thirty-two bytes or more\n' }).webhookKeys.shared,
    Buffer.from(' spaced key of thirty-two bytes or more\n'),
    'WEBHOOK_TOKEN not trimmed',
  );

  t.match(problemsOf(t, { ...MINIMAL, WEBHOOK_TOKEN_FILE: file }), [/^set only one of WEBHOOK_TOKEN and WEBHOOK_TOKEN_FILE/], 'both set');
  t.match(
    problemsOf(t, { ...MINIMAL, WEBHOOK_TOKEN: undefined, WEBHOOK_TOKEN_FILE: join(dir, 'missing') }),
    [/^WEBHOOK_TOKEN_FILE=".*missing" cannot be read \(ENOENT\)/],
    'unreadable file: one problem, no extra "required"',
  );
  const empty = join(dir, 'empty');
  writeFileSync(empty, '');
  t.match(
    problemsOf(t, { ...MINIMAL, WEBHOOK_TOKEN: undefined, WEBHOOK_TOKEN_FILE: empty }),
    [/^WEBHOOK_TOKEN or WEBHOOK_TOKEN_FILE is required/],
    'empty file',
  );
  t.match(problemsOf(t, { ...MINIMAL, WEBHOOK_TOKEN: '' }), [/^WEBHOOK_TOKEN or WEBHOOK_TOKEN_FILE is required/], 'empty token');
  t.same(
    loadConfig({ ...MINIMAL, WEBHOOK_TOKEN: undefined, WEBHOOK_TOKEN_DIR: '/etc/webhook-keys' }).webhookKeys,
    { dir: '/etc/webhook-keys' },
    'WEBHOOK_TOKEN_DIR alone: keys per namespace only',
  );
  t.same(
    loadConfig({ ...MINIMAL, WEBHOOK_TOKEN_DIR: '/etc/webhook-keys' }).webhookKeys,
    { shared: Buffer.from(MINIMAL.WEBHOOK_TOKEN), dir: '/etc/webhook-keys' },
    'both: the shared key for every namespace beside them',
  );

  const seen: string[] = [];
  const c = loadConfig({ ...MINIMAL, WEBHOOK_TOKEN: undefined, WEBHOOK_TOKEN_FILE: '/run/secrets/token' }, (p) => {
    seen.push(p);
    return Buffer.from('injected-key-of-thirty-two-bytes-or-more');
  });
  t.same(seen, ['/run/secrets/token'], 'reads through the injected reader');
  t.same(c.webhookKeys.shared, Buffer.from('injected-key-of-thirty-two-bytes-or-more'));
  t.end();
});

t.test('durations', (t) => {
  const rows: Array<[string, number | undefined]> = [
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['90', 90_000],
    ['250ms', 250],
    ['1.5m', 90_000],
    [' 10s ', 10_000],
    ['0', undefined],
    ['0s', undefined],
    ['abc', undefined],
    ['-5s', undefined],
    ['5d', undefined],
    ['5 m', undefined],
    ['', undefined],
    ['1h30m', undefined],
  ];
  for (const [text, want] of rows) t.equal(parseDuration(text), want, `parseDuration(${JSON.stringify(text)})`);
  t.end();
});

t.test('RESYNC_INTERVAL: a duration of at least 1 s', (t) => {
  const refused = [/^RESYNC_INTERVAL=.* must be a duration of at least 1s, such as 30s, 5m, 1h or plain seconds$/];
  const rows: Array<[string, number | 'refused']> = [
    ['1ms', 'refused'],
    ['100ms', 'refused'],
    ['999ms', 'refused'],
    ['0.5', 'refused'],
    ['1000ms', 1_000],
    ['1s', 1_000],
    ['1', 1_000],
    ['2s', 2_000],
    ['5m', 300_000],
    ['0', 'refused'],
    ['abc', 'refused'],
    ['1h30m', 'refused'],
  ];
  for (const [text, want] of rows) {
    const env = { ...MINIMAL, RESYNC_INTERVAL: text };
    if (want === 'refused') t.match(problemsOf(t, env), refused, `RESYNC_INTERVAL=${text} refused`);
    else t.equal(loadConfig(env).resyncIntervalMs, want, `RESYNC_INTERVAL=${text}`);
  }
  t.equal(MIN_RESYNC_INTERVAL_MS, 1_000);
  t.end();
});

t.test('the result is frozen', (t) => {
  const c = loadConfig({ ...MINIMAL });
  t.ok(Object.isFrozen(c));
  t.throws(() => {
    (c as { port: number }).port = 1;
  }, TypeError);
  t.equal(c.port, 8484);
  t.end();
});

t.test('the env object is only read', (t) => {
  const env = Object.freeze({ ...MINIMAL, WATCH_NAMESPACES: 'a' });
  t.doesNotThrow(() => loadConfig(env));
  t.end();
});

t.test('explain reads only what shapes a report: no webhook key, no GitHub credentials', (t) => {
  const c = loadReportingConfig({ CLUSTER_NAME: 'prod-eu-1', PORT: 'not read', GITHUB_SERVER_URL: 'https://ghe.example.com' });
  t.equal(c.clusterName, 'prod-eu-1');
  t.equal(c.githubHost, 'ghe.example.com');
  for (const k of ['webhookKey', 'githubAuth', 'port']) t.notOk(k in c, `${k} not read`);
  t.ok(Object.isFrozen(c));
  try {
    loadReportingConfig({ LOG_LEVEL: 'loud' });
    t.fail('should throw');
  } catch (err) {
    t.type(err, ConfigError);
    t.strictSame((err as ConfigError).problems, [
      'CLUSTER_NAME is required: the name of the cluster this bridge reports, as the forges show it (prod-eu)',
      'LOG_LEVEL="loud" must be one of fatal, error, warn, info, debug, trace, silent',
    ]);
  }
  t.end();
});

t.test('trust boundary settings', (t) => {
  const c = loadConfig({ ...MINIMAL, ALLOWED_REPOSITORIES: 'Acme/*, globex/api', REPOSITORY_SOURCE: 'Annotation' });
  t.same(c.allowedRepositories, [
    { owner: 'acme', repo: '*' },
    { owner: 'globex', repo: 'api' },
  ]);
  t.equal(c.repositorySource, 'annotation');
  const d = loadConfig({ ...MINIMAL });
  t.same(d.allowedRepositories, []);
  t.equal(d.repositorySource, 'any');
  t.match(problemsOf(t, { ...MINIMAL, ALLOWED_REPOSITORIES: ' , ' }), [/^ALLOWED_REPOSITORIES is empty/]);
  t.end();
});
