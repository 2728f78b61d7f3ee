/** The registry: every list and rule about the set of forges derived from its one array of drivers. Pure. */
import t from 'tap';
import {
  DRIVERS,
  FORGE_REPORTING_SETTINGS,
  FORGE_SERVICE_SETTINGS,
  forgeUrls,
  noForgeProblem,
  type ForgeSettings,
} from '../../src/forges/registry.js';

t.test('no forge is configured only when no variable of any forge is set', (t) => {
  const cases: Array<[Record<string, string>, boolean]> = [
    [{}, true],
    [{ GITHUB_TOKEN: 't' }, false],
    [{ GITHUB_APP_PRIVATE_KEY_PATH: '/key.pem' }, false],
    [{ FORGEJO_TOKEN_FILE: '/token' }, false],
    [{ GITLAB_URL: 'https://gitlab.example.com' }, false],
    [{ WEBHOOK_TOKEN: 'x' }, true],
  ];
  for (const [env, none] of cases) {
    const problem = noForgeProblem(DRIVERS, (name) => env[name]);
    t.equal(problem !== undefined, none, JSON.stringify(env));
  }
  t.match(
    noForgeProblem(DRIVERS, () => undefined),
    /^no forge is configured: set credentials for at least one: GitHub \(GITHUB_TOKEN .*\), Forgejo or Gitea \(FORGEJO_URL with FORGEJO_TOKEN\), GitLab \(GITLAB_URL with GITLAB_TOKEN\)$/,
    'each forge says how, in the registry order',
  );
  t.end();
});

t.test("the settings tables are the drivers' own, in the registry's order, the rule first", (t) => {
  t.same(
    Object.keys(FORGE_REPORTING_SETTINGS),
    DRIVERS.flatMap((d) => Object.keys(d.settings.reporting)),
  );
  t.same(Object.keys(FORGE_SERVICE_SETTINGS), ['atLeastOneForge', ...DRIVERS.flatMap((d) => Object.keys(d.settings.service))]);
  t.end();
});

t.test('each forge URL its settings use, by its setting', (t) => {
  const web = { webUrl: 'http://forgejo.local', apiBase: 'http://forgejo.local/api/v1' };
  const s = { githubApiUrl: 'https://api.github.com', forgejoUrl: web } as unknown as ForgeSettings;
  t.same(forgeUrls(s), [{ setting: 'FORGEJO_URL', url: 'http://forgejo.local' }], 'GitHub without credentials: its URL unused');
  t.same(forgeUrls({ ...s, githubAuth: { kind: 'token', token: 't' } }), [
    { setting: 'GITHUB_API_URL', url: 'https://api.github.com' },
    { setting: 'FORGEJO_URL', url: 'http://forgejo.local' },
  ]);
  t.end();
});
