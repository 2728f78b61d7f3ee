import t, { type Test } from 'tap';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { DEFAULT_CONTEXT_TEMPLATE, statusContext } from '../../../src/forges/forgejo/status-context.js';

const NO_GITHUB = { WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes', CLUSTER_NAME: 'prod-eu-1' };
const BASE = { ...NO_GITHUB, GITHUB_TOKEN: 'ghp_test' };
const FORGEJO = { FORGEJO_URL: 'https://git.example.com/forgejo/', FORGEJO_TOKEN: 'fj_token' };

function problemsOf(t: Test, env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    t.type(err, ConfigError);
    return (err as ConfigError).problems;
  }
  t.fail('accepted');
  return [];
}

/** A temp file holding `text`; removed after the test. */
function tokenFile(t: Test, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-forgejo-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'token');
  writeFileSync(path, text);
  return path;
}

t.test('FORGEJO_URL with FORGEJO_TOKEN: where the API is, the token inline, the default context', (t) => {
  const c = loadConfig({ ...BASE, ...FORGEJO });
  t.same(c.forgejoUrl, {
    webUrl: 'https://git.example.com/forgejo',
    apiBase: 'https://git.example.com/forgejo/api/v1',
    host: 'git.example.com',
  });
  t.same(c.forgejoToken, { kind: 'inline', value: 'fj_token' });
  t.equal(c.forgejoStatusContext.source, DEFAULT_CONTEXT_TEMPLATE);
  t.same(c.githubAuth, { kind: 'token', token: 'ghp_test' }, 'GitHub beside it');
  t.end();
});

t.test('without FORGEJO_URL nothing of Forgejo is set', (t) => {
  const c = loadConfig({ ...BASE });
  t.notOk('forgejoUrl' in c);
  t.equal(c.forgejoToken, undefined);
  t.end();
});

t.test('FORGEJO_TOKEN_FILE: the path is kept (read again before each request); an empty file is a problem', (t) => {
  const path = tokenFile(t, 'fj_from_file\n');
  t.same(loadConfig({ ...BASE, FORGEJO_URL: FORGEJO.FORGEJO_URL, FORGEJO_TOKEN_FILE: path }).forgejoToken, { kind: 'file', path });
  const empty = tokenFile(t, ' \n');
  t.same(problemsOf(t, { ...BASE, FORGEJO_URL: FORGEJO.FORGEJO_URL, FORGEJO_TOKEN_FILE: empty }), [
    `FORGEJO_TOKEN_FILE="${empty}" is empty`,
  ]);
  t.same(problemsOf(t, { ...BASE, FORGEJO_URL: FORGEJO.FORGEJO_URL, FORGEJO_TOKEN_FILE: '/nonexistent/token' }), [
    'FORGEJO_TOKEN_FILE="/nonexistent/token" cannot be read (ENOENT)',
  ]);
  t.end();
});

t.test('the token and the URL come together, the token in exactly one form', (t) => {
  const rows: Array<[string, NodeJS.ProcessEnv, RegExp]> = [
    ['both forms', { ...FORGEJO, FORGEJO_TOKEN_FILE: tokenFile(t, 'x') }, /^set only one of FORGEJO_TOKEN and FORGEJO_TOKEN_FILE$/],
    ['token without URL', { FORGEJO_TOKEN: 'x' }, /^FORGEJO_TOKEN or FORGEJO_TOKEN_FILE is set, but FORGEJO_URL is not$/],
    ['file without URL', { FORGEJO_TOKEN_FILE: tokenFile(t, 'x') }, /^FORGEJO_TOKEN or FORGEJO_TOKEN_FILE is set, but FORGEJO_URL is not$/],
    [
      'URL without token',
      { FORGEJO_URL: FORGEJO.FORGEJO_URL },
      /^FORGEJO_TOKEN or FORGEJO_TOKEN_FILE is required with FORGEJO_URL: .*write:repository$/,
    ],
    ['ftp URL', { ...FORGEJO, FORGEJO_URL: 'ftp://git.example.com' }, /^FORGEJO_URL must be an https or http URL$/],
    ['URL with credentials', { ...FORGEJO, FORGEJO_URL: 'https://bot:hunter2@git.example.com' }, /^FORGEJO_URL must not hold credentials/],
    ['not a URL', { ...FORGEJO, FORGEJO_URL: 'git.example.com' }, /^FORGEJO_URL is not an absolute URL$/],
  ];
  for (const [name, env, problem] of rows) {
    const problems = problemsOf(t, { ...BASE, ...env });
    t.match(problems, [problem], name);
    t.equal(problems.length, 1, `${name}: one problem`);
    t.notMatch(problems.join('\n'), 'hunter2', `${name}: no password shown`);
  }
  t.end();
});

t.test('FORGEJO_STATUS_CONTEXT: checked by the template rules, a valid one used', (t) => {
  t.match(problemsOf(t, { ...BASE, ...FORGEJO, FORGEJO_STATUS_CONTEXT: 'deploy/{environment}/{deploymentName}' }), [
    /^FORGEJO_STATUS_CONTEXT: status context template "deploy\/\{environment\}\/\{deploymentName\}" must contain \{cluster\} exactly once$/,
  ]);
  t.match(problemsOf(t, { ...BASE, ...FORGEJO, FORGEJO_STATUS_CONTEXT: '{cluster}/{environment}/{deploymentName}/{team}' }), [
    /^FORGEJO_STATUS_CONTEXT: .*unknown placeholder \{team\}/,
  ]);
  const c = loadConfig({ ...BASE, ...FORGEJO, FORGEJO_STATUS_CONTEXT: ' cd/{cluster}/{environment}:{deploymentName} ' });
  t.equal(c.forgejoStatusContext.source, 'cd/{cluster}/{environment}:{deploymentName}');
  t.equal(
    statusContext(c.forgejoStatusContext, { environment: 'production', deploymentName: 'api', cluster: 'eu-1' }),
    'cd/eu-1/production:api',
  );
  t.equal(statusContext(c.forgejoStatusContext, { environment: 'production', cluster: 'eu-1' }), 'cd/eu-1/production');
  t.end();
});

t.test('GitHub credentials are optional with Forgejo, required without', (t) => {
  const c = loadConfig({ ...NO_GITHUB, ...FORGEJO });
  t.equal(c.githubAuth, undefined, 'a Forgejo-only bridge');
  t.same(c.forgejoToken, { kind: 'inline', value: 'fj_token' });
  t.match(problemsOf(t, NO_GITHUB), [
    /^no forge is configured: set credentials for at least one: GitHub \(GITHUB_TOKEN .*\), Forgejo or Gitea \(FORGEJO_URL with FORGEJO_TOKEN\), GitLab \(GITLAB_URL with GITLAB_TOKEN\)$/,
  ]);
  t.end();
});

t.test('every problem is reported at once', (t) => {
  const problems = problemsOf(t, {
    ...BASE,
    PORT: 'eighty',
    FORGEJO_URL: 'ftp://git.example.com',
    FORGEJO_TOKEN: 'x',
    FORGEJO_TOKEN_FILE: '/nonexistent/token',
    FORGEJO_STATUS_CONTEXT: 'deploy/{environment}',
  });
  t.match(problems.slice().sort(), [
    /^FORGEJO_STATUS_CONTEXT: .*must contain \{deploymentName\} exactly once/,
    /^FORGEJO_TOKEN_FILE="\/nonexistent\/token" cannot be read \(ENOENT\)$/,
    /^FORGEJO_URL must be an https or http URL$/,
    /^PORT="eighty"/,
    /^set only one of FORGEJO_TOKEN and FORGEJO_TOKEN_FILE$/,
  ]);
  t.equal(problems.length, 5);
  t.end();
});

t.test("another forge's token without its URL: that forge's own problem, never GitHub's words", (t) => {
  t.same(problemsOf(t, { ...NO_GITHUB, GITLAB_TOKEN: 'glpat-x' }), ['GITLAB_TOKEN or GITLAB_TOKEN_FILE is set, but GITLAB_URL is not']);
  const fromFile = problemsOf(t, { ...NO_GITHUB, GITLAB_TOKEN_FILE: '/nonexistent/gitlab/token' });
  t.ok(fromFile.includes('GITLAB_TOKEN or GITLAB_TOKEN_FILE is set, but GITLAB_URL is not'), fromFile.join('; '));
  t.notOk(
    fromFile.some((p) => /GitHub|GITHUB/.test(p)),
    'the file set: nothing about GitHub',
  );
  t.same(problemsOf(t, { ...NO_GITHUB, FORGEJO_TOKEN: 'fj' }), ['FORGEJO_TOKEN or FORGEJO_TOKEN_FILE is set, but FORGEJO_URL is not']);
  t.end();
});
