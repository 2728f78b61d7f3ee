/**
 * Issue 22, item 9: settings that were accepted silently. Short keys, the example manifests' placeholders and
 * plain-http forge URLs are refused at start (one problem each, never quoting a secret); the open defaults that
 * stay are said at start (startup-notices.ts).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadConfig } from '../../src/config/load-config.js';
import { startupNotices } from '../../src/config/startup-notices.js';
import { MIN_SECRET_BYTES, weakSecret } from '../../src/common/secret-strength.js';
import { parseRepositoryPatterns, trustOf } from '../../src/metadata/repository-trust.js';
import { REPO_ROOT } from '../fixtures/locate.js';
import { parseYaml } from '../manifests/render.js';
import { configProblems } from './config-problems.js';

const KEY = 'a-webhook-key-of-at-least-32-bytes';
const BASE = { WEBHOOK_TOKEN: KEY, GITHUB_TOKEN: 'ghp_test', CLUSTER_NAME: 'prod-eu-1' };
/** The HMAC key of manifests/flux/secret.example.yaml, as a careless operator applies it. */
const EXAMPLE_KEY = (
  parseYaml(readFileSync(join(REPO_ROOT, 'manifests/flux/secret.example.yaml'), 'utf8'))[0] as unknown as {
    stringData: { token: string };
  }
).stringData.token;

const problemsOf = configProblems;

function file(t: Test, content: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-weak-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'secret'), content);
  return join(dir, 'secret');
}

t.test('the minimum: 32 bytes, and no placeholder of an example manifest', (t) => {
  t.equal(MIN_SECRET_BYTES, 32);
  t.equal(weakSecret('x'.repeat(32)), undefined);
  t.match(weakSecret('x'.repeat(31)), /^is 31 bytes long; at least 32 are required/);
  t.match(
    weakSecret(EXAMPLE_KEY),
    /placeholder of an example manifest/,
    `the example key is ${EXAMPLE_KEY.length} bytes: length alone lets it in`,
  );
  t.match(weakSecret('replace-with-the-hmac-key-of-namespace-apps'), /placeholder/, 'the other examples too');
  t.equal(weakSecret(Buffer.from('é'.repeat(16))), undefined, 'bytes, not characters');
  t.end();
});

t.test('refused at start, one problem each, the secret never quoted', (t) => {
  const rows: Array<[string, NodeJS.ProcessEnv, RegExp]> = [
    ['a one-byte WEBHOOK_TOKEN', { ...BASE, WEBHOOK_TOKEN: 'k' }, /^WEBHOOK_TOKEN is 1 bytes long; at least 32/],
    ["the example manifest's key", { ...BASE, WEBHOOK_TOKEN: EXAMPLE_KEY }, /^WEBHOOK_TOKEN is the placeholder of an example manifest/],
    [
      'a short WEBHOOK_TOKEN_FILE',
      { ...BASE, WEBHOOK_TOKEN: undefined, WEBHOOK_TOKEN_FILE: file(t, 'short\n') },
      /^WEBHOOK_TOKEN_FILE is 6 bytes/,
    ],
    ['a one-byte STATE_TOKEN', { ...BASE, STATE_TOKEN: 's' }, /^STATE_TOKEN is 1 bytes long/],
    ['a short STATE_TOKEN_FILE', { ...BASE, STATE_TOKEN_FILE: file(t, 'st\n') }, /^STATE_TOKEN_FILE=".*" is 2 bytes long/],
    [
      "STATE_TOKEN as the example's placeholder",
      { ...BASE, STATE_TOKEN: 'replace-with-a-long-random-token-for-state' },
      /^STATE_TOKEN is the placeholder/,
    ],
    [
      'http GITHUB_API_URL',
      { ...BASE, GITHUB_API_URL: 'http://ghe.example.com/api/v3' },
      /^GITHUB_API_URL is plain http: the token would cross the network in clear/,
    ],
    ['http FORGEJO_URL', { ...BASE, FORGEJO_URL: 'http://git.example.com', FORGEJO_TOKEN: 'fj' }, /^FORGEJO_URL is plain http/],
    ['http GITLAB_URL', { ...BASE, GITLAB_URL: 'HTTP://gitlab.example.com', GITLAB_TOKEN: 'gl' }, /^GITLAB_URL is plain http/],
  ];
  for (const [what, env, problem] of rows) {
    const problems = problemsOf(env);
    t.match(problems, [problem], what);
    t.equal(problems.length, 1, `${what}: one problem`);
    // A secret of a few characters could be part of any sentence: the longer ones are checked.
    for (const secret of [env.WEBHOOK_TOKEN, env.STATE_TOKEN])
      if (secret !== undefined && secret !== KEY && secret.length > 3)
        t.notMatch(problems.join('\n'), secret, `${what}: the secret is not quoted`);
  }
  t.end();
});

t.test('accepted: long keys, https, and http only with ALLOW_HTTP_FORGE_URLS', (t) => {
  t.doesNotThrow(() => loadConfig({ ...BASE, STATE_TOKEN: 'x'.repeat(32) }));
  const allowed = loadConfig({
    ...BASE,
    ALLOW_HTTP_FORGE_URLS: 'true',
    GITHUB_API_URL: 'http://127.0.0.1:1',
    FORGEJO_URL: 'http://127.0.0.1:2',
    FORGEJO_TOKEN: 'fj',
  });
  t.equal(allowed.allowHttpForgeUrls, true);
  t.equal(loadConfig(BASE).allowHttpForgeUrls, false, 'off by default');
  t.match(problemsOf({ ...BASE, ALLOW_HTTP_FORGE_URLS: 'maybe' }), [/^ALLOW_HTTP_FORGE_URLS="maybe" must be true or false/]);
  t.end();
});

t.test('start-up notices: open trust, open /state, plain-http forges said once each', (t) => {
  const none = { allowedRepositories: [], repositorySource: 'any', allowHttpForgeUrls: false, forgeUrls: [] };
  const open = startupNotices(none);
  t.same(
    open.map((n) => [n.level, n.msg.split(':')[0]]),
    [
      ['warn', 'ALLOWED_REPOSITORIES is not set'],
      ['warn', '/state is open'],
    ],
  );
  const { patterns } = parseRepositoryPatterns('acme/*,partner/shop');
  const closed = startupNotices({
    ...none,
    allowedRepositories: patterns,
    stateToken: { kind: 'inline', value: 'x' },
    allowHttpForgeUrls: true,
    forgeUrls: [
      { setting: 'GITHUB_API_URL', url: 'https://api.github.com' },
      { setting: 'FORGEJO_URL', url: 'http://127.0.0.1:3000' },
    ],
  });
  t.same(
    closed.map((n) => [n.level, n.msg.split(':')[0]]),
    [
      ['info', 'trust boundary'],
      ['warn', 'ALLOW_HTTP_FORGE_URLS=true'],
    ],
  );
  t.same(closed[1]!.fields, { plainHttp: ['FORGEJO_URL'] });
  t.same(trustOf({ allowedRepositories: patterns, repositorySource: 'annotation' }), {
    mode: 'allow-list',
    patterns: 2,
    repositorySource: 'annotation',
  });
  t.same(trustOf(none), { mode: 'open', patterns: 0, repositorySource: 'any' });
  t.end();
});
