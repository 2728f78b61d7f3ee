import t from 'tap';
import { routeRepository, type ForgeHost } from '../../src/metadata/forge-route.js';

type ForgeHosts = readonly ForgeHost[];
import { parseRepository } from '../../src/metadata/repository.js';

const GITHUB = { forge: 'github', host: 'github.com' };
const FORGEJO = { forge: 'forgejo', host: 'forgejo.example.com', setting: 'FORGEJO_URL' };
const GITLAB = { forge: 'gitlab', host: 'gitlab.example.com', setting: 'GITLAB_URL', nested: true };
const BOTH: ForgeHosts = [GITHUB, FORGEJO];
const ALL: ForgeHosts = [GITHUB, FORGEJO, GITLAB];
const GITHUB_ONLY: ForgeHosts = [GITHUB];
const GHES: ForgeHosts = [{ forge: 'github', host: 'GHE.example.com' }];
const FORGEJO_ONLY: ForgeHosts = [{ ...GITHUB, disabled: 'no GitHub credentials are set (GITHUB_TOKEN or a GitHub App)' }, FORGEJO];

t.test('routeRepository: the host decides the forge; a bare owner/repo goes to GitHub if it is configured', (t) => {
  const rows: Array<[string, ForgeHosts, string]> = [
    ['https://github.com/acme/web', BOTH, 'github github.com'],
    ['https://forgejo.example.com/acme/web', BOTH, 'forgejo forgejo.example.com'],
    ['https://Forgejo.Example.com:3000/acme/web', BOTH, 'forgejo forgejo.example.com'],
    ['git@forgejo.example.com:acme/web.git', BOTH, 'forgejo forgejo.example.com'],
    ['acme/web', BOTH, 'github github.com'],
    ['acme/web', GITHUB_ONLY, 'github github.com'],
    ['acme/web', FORGEJO_ONLY, 'forgejo forgejo.example.com'],
    ['https://forgejo.example.com/acme/web', FORGEJO_ONLY, 'forgejo forgejo.example.com'],
    ['https://ghe.example.com/platform/api', GHES, 'github ghe.example.com'],
    ['platform/api', GHES, 'github ghe.example.com'],
    ['https://gitlab.com/org/app', BOTH, 'is not on github.com nor on forgejo.example.com (FORGEJO_URL)'],
    ['https://gitlab.com/org/app', GITHUB_ONLY, 'is not on github.com'],
    ['https://github.com.evil.example/org/app', GITHUB_ONLY, 'is not on github.com'],
    ['https://github.com/platform/api', GHES, 'is not on ghe.example.com'],
    ['https://forgejo.example.com/acme/web', GITHUB_ONLY, 'is not on github.com'],
    ['https://gitlab.example.com/platform/team/app', ALL, 'gitlab gitlab.example.com'],
    [
      'https://github.com/acme/web',
      FORGEJO_ONLY,
      'is on github.com, but no GitHub credentials are set (GITHUB_TOKEN or a GitHub App): only FORGEJO_URL is served',
    ],
  ];
  for (const [value, hosts, want] of rows) {
    const parsed = parseRepository(value, ['gitlab.example.com']);
    if ('error' in parsed) throw new Error(parsed.error);
    const r = routeRepository(parsed, hosts);
    t.equal('error' in r ? r.error : `${r.forge} ${r.host}`, want, `${value} with ${JSON.stringify(hosts)}`);
  }
  t.end();
});
