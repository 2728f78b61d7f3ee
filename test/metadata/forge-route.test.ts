import t from 'tap';
import { nestedPathHint, routeRepository, type ForgeHost } from '../../src/metadata/forge-route.js';
import { parseRepositoryLocation } from '../../src/metadata/repository-location.js';

type ForgeHosts = readonly ForgeHost[];

const GITHUB = { forge: 'github', host: 'github.com' };
const FORGEJO = { forge: 'forgejo', host: 'forgejo.example.com', setting: 'FORGEJO_URL' };
const GITLAB = { forge: 'gitlab', host: 'gitlab.example.com', setting: 'GITLAB_URL', nested: true };
const BOTH: ForgeHosts = [GITHUB, FORGEJO];
const ALL: ForgeHosts = [GITHUB, FORGEJO, GITLAB];
const GITHUB_ONLY: ForgeHosts = [GITHUB];
const GHES: ForgeHosts = [{ forge: 'github', host: 'GHE.example.com' }];
const FORGEJO_ONLY: ForgeHosts = [{ ...GITHUB, disabled: 'no GitHub credentials are set (GITHUB_TOKEN or a GitHub App)' }, FORGEJO];
/** Two forges on one host name, apart by port. */
const PORTS: ForgeHosts = [
  GITHUB,
  { forge: 'gitlab', host: 'corp.example:8443', setting: 'GITLAB_URL', nested: true },
  { forge: 'forgejo', host: 'corp.example:3000', scheme: 'http', setting: 'FORGEJO_URL' },
];
/** Two forges on one host and port, apart by base path. */
const PATHS: ForgeHosts = [
  GITHUB,
  { forge: 'gitlab', host: 'corp.example', basePath: '/gitlab', setting: 'GITLAB_URL', nested: true },
  { forge: 'forgejo', host: 'corp.example', basePath: '/git', setting: 'FORGEJO_URL' },
];

const route = (value: string, hosts: ForgeHosts) => {
  const loc = parseRepositoryLocation(value);
  if ('error' in loc) throw new Error(loc.error);
  const r = routeRepository(loc, hosts);
  return 'error' in r ? r.error : `${r.forge} ${r.host} ${r.path}`;
};

t.test('routeRepository: the host decides the forge; a bare owner/repo goes to GitHub if it is configured', (t) => {
  const rows: Array<[string, ForgeHosts, string]> = [
    ['https://github.com/acme/web', BOTH, 'github github.com /acme/web'],
    ['http://github.com/acme/web', BOTH, 'github github.com /acme/web'],
    ['https://github.com:443/acme/web', BOTH, 'github github.com /acme/web'],
    ['https://forgejo.example.com/acme/web', BOTH, 'forgejo forgejo.example.com /acme/web'],
    ['git@forgejo.example.com:acme/web.git', BOTH, 'forgejo forgejo.example.com acme/web.git'],
    ['ssh://git@forgejo.example.com:2222/acme/web.git', BOTH, 'forgejo forgejo.example.com /acme/web.git'],
    ['acme/web', BOTH, 'github github.com acme/web'],
    ['acme/web', GITHUB_ONLY, 'github github.com acme/web'],
    ['acme/web', FORGEJO_ONLY, 'forgejo forgejo.example.com acme/web'],
    ['https://forgejo.example.com/acme/web', FORGEJO_ONLY, 'forgejo forgejo.example.com /acme/web'],
    ['https://ghe.example.com/platform/api', GHES, 'github ghe.example.com /platform/api'],
    ['platform/api', GHES, 'github ghe.example.com platform/api'],
    ['https://gitlab.com/org/app', BOTH, 'is not on github.com nor on forgejo.example.com (FORGEJO_URL)'],
    ['https://gitlab.com/org/app', GITHUB_ONLY, 'is not on github.com'],
    ['https://github.com.evil.example/org/app', GITHUB_ONLY, 'is not on github.com'],
    ['https://github.com/platform/api', GHES, 'is not on ghe.example.com'],
    ['https://forgejo.example.com/acme/web', GITHUB_ONLY, 'is not on github.com'],
    ['https://gitlab.example.com/platform/team/app', ALL, 'gitlab gitlab.example.com /platform/team/app'],
    [
      'https://github.com/acme/web',
      FORGEJO_ONLY,
      'is on github.com, but no GitHub credentials are set (GITHUB_TOKEN or a GitHub App): only FORGEJO_URL is served',
    ],
  ];
  for (const [value, hosts, want] of rows) t.equal(route(value, hosts), want, `${value} with ${JSON.stringify(hosts)}`);
  t.end();
});

t.test('routeRepository: a forge is its host and port; a URL without a port reaches the default port', (t) => {
  const rows: Array<[string, ForgeHosts, string]> = [
    ['https://corp.example:8443/platform/team/shop', PORTS, 'gitlab corp.example:8443 /platform/team/shop'],
    ['http://corp.example:3000/acme/web', PORTS, 'forgejo corp.example:3000 /acme/web'],
    ['https://Corp.Example:3000/acme/web.git', PORTS, 'forgejo corp.example:3000 /acme/web.git'],
    [
      'https://corp.example/acme/web',
      PORTS,
      'is not on github.com nor on corp.example:8443 (GITLAB_URL) nor on corp.example:3000 (FORGEJO_URL)',
    ],
    [
      'https://corp.example:9999/acme/web',
      PORTS,
      'is not on github.com nor on corp.example:8443 (GITLAB_URL) nor on corp.example:3000 (FORGEJO_URL)',
    ],
    ['https://forgejo.example.com:3000/acme/web', BOTH, 'is not on github.com nor on forgejo.example.com (FORGEJO_URL)'],
    ['https://github.com:8443/acme/web', BOTH, 'is not on github.com nor on forgejo.example.com (FORGEJO_URL)'],
    [
      'git@corp.example:platform/shop.git',
      PORTS,
      "names corp.example over ssh, where 2 forges live (corp.example:8443 (GITLAB_URL), corp.example:3000 (FORGEJO_URL)): give the repository's web URL",
    ],
  ];
  for (const [value, hosts, want] of rows) t.equal(route(value, hosts), want, value);
  t.end();
});

t.test('routeRepository: a forge under a sub-path holds only the URLs below it, its base path stripped', (t) => {
  const rows: Array<[string, ForgeHosts, string]> = [
    ['https://corp.example/gitlab/platform/team/shop', PATHS, 'gitlab corp.example /platform/team/shop'],
    ['https://corp.example/gitlab/platform/team/shop.git', PATHS, 'gitlab corp.example /platform/team/shop.git'],
    ['https://corp.example/gitlab/platform/shop/-/tree/main', PATHS, 'gitlab corp.example /platform/shop/-/tree/main'],
    ['https://corp.example/git/acme/web', PATHS, 'forgejo corp.example /acme/web'],
    [
      'https://corp.example/gitlabx/acme/web',
      PATHS,
      'is on corp.example but not below corp.example/gitlab (GITLAB_URL): it is on no configured forge',
    ],
    [
      'https://corp.example/platform/shop',
      PATHS,
      'is on corp.example but not below corp.example/gitlab (GITLAB_URL): it is on no configured forge',
    ],
    // ssh paths never hold the web base path.
    [
      'git@gitlab.example.com:platform/team/shop.git',
      [GITHUB, { ...GITLAB, basePath: '/gitlab' }],
      'gitlab gitlab.example.com platform/team/shop.git',
    ],
  ];
  for (const [value, hosts, want] of rows) t.equal(route(value, hosts), want, value);
  t.end();
});

t.test('nestedPathHint: a bare nested path says where it went and what to write instead', (t) => {
  const hint = (value: string, hosts: ForgeHosts) => {
    const loc = parseRepositoryLocation(value);
    if ('error' in loc) throw new Error(loc.error);
    const r = routeRepository(loc, hosts);
    if ('error' in r) throw new Error(r.error);
    return nestedPathHint(loc, r, hosts);
  };
  t.match(hint('platform/team/app', BOTH), /no GitLab is configured \(GITLAB_URL\)/);
  t.match(hint('platform/team/app', ALL), /goes to github, the first forge served: .*https:\/\/gitlab\.example\.com\/platform\/team\/app/);
  t.match(hint('platform/team/app', PATHS), /https:\/\/corp\.example\/gitlab\/platform\/team\/app/);
  t.equal(hint('acme/web', ALL), undefined, 'not nested');
  t.equal(hint('https://github.com/platform/team/app', ALL), undefined, 'a URL is not bare');
  t.equal(hint('platform/team/app', [{ ...GITLAB }]), undefined, 'GitLab applies: it nests');
  t.end();
});
