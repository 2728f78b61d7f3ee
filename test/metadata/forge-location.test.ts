/** resolveTarget over forges that live on a port or under a sub-path: which forge and which repository a value names. */
import t from 'tap';
import { resolveTarget, type Defaults } from '../../src/metadata/resolve-target.js';
import { parseRepositoryPatterns } from '../../src/metadata/repository-trust.js';
import type { ForgeHost } from '../../src/metadata/forge-route.js';

const SHA = '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
const source = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'apps' };
const container = { name: 'app', image: 'registry.example/shop:1' };
const GITHUB: ForgeHost = { forge: 'github', host: 'github.com' };
const GITLAB_PORT: ForgeHost = { forge: 'gitlab', host: 'corp.example:8443', setting: 'GITLAB_URL', nested: true };
const FORGEJO_PORT: ForgeHost = { forge: 'forgejo', host: 'corp.example:3000', scheme: 'http', setting: 'FORGEJO_URL' };
const GITLAB_SUB: ForgeHost = { forge: 'gitlab', host: 'corp.example', basePath: '/gitlab', setting: 'GITLAB_URL', nested: true };
const FORGEJO_SUB: ForgeHost = { forge: 'forgejo', host: 'corp.example', basePath: '/forgejo', setting: 'FORGEJO_URL' };

function resolve(repository: string, forges: readonly ForgeHost[], allowed = '') {
  const defaults: Defaults = {
    cluster: 'c',
    environment: 'staging',
    description: 'd',
    forges,
    controllerVersion: '1',
    allowedRepositories: parseRepositoryPatterns(allowed).patterns,
  };
  const workload = {
    kind: 'Deployment',
    namespace: 'shop',
    name: 'shop',
    annotations: { repository, commit: SHA },
    containers: [container],
  };
  const r = resolveTarget(source, workload, container, undefined, defaults);
  return 'target' in r ? `${r.target.forge} ${r.target.owner}/${r.target.repo}` : r.skip;
}

t.test('two forges on one host name, apart by port: each repository goes to its own', (t) => {
  const forges = [GITHUB, GITLAB_PORT, FORGEJO_PORT];
  t.equal(resolve('https://corp.example:8443/platform/team/shop', forges), 'gitlab platform/team/shop');
  t.equal(resolve('http://corp.example:3000/acme/shop', forges), 'forgejo acme/shop');
  t.match(resolve('https://corp.example/acme/shop', forges), /is not on github\.com nor on corp\.example:8443 \(GITLAB_URL\)/);
  t.end();
});

t.test('ALLOWED_REPOSITORIES host:port patterns hold on the forge at that port only', (t) => {
  const forges = [GITHUB, GITLAB_PORT, FORGEJO_PORT];
  const allow = 'corp.example:8443/platform/*';
  t.equal(resolve('https://corp.example:8443/platform/team/shop', forges, allow), 'gitlab platform/team/shop');
  t.equal(
    resolve('http://corp.example:3000/platform/shop', forges, allow),
    'platform/shop on corp.example:3000 (from the github-deployment-bridge.io/repository annotation) is not in ALLOWED_REPOSITORIES',
  );
  t.match(resolve('http://corp.example:3000/platform/shop', forges, 'corp.example/platform/*'), /is not in ALLOWED_REPOSITORIES/);
  t.equal(
    resolve('https://github.com/platform/shop', forges, 'github.com:443/platform/*'),
    'github platform/shop',
    'the default port named',
  );
  t.end();
});

t.test('a forge under a sub-path: its base path is stripped; a URL outside it is on no forge', (t) => {
  const forges = [GITHUB, GITLAB_SUB, FORGEJO_SUB];
  t.equal(resolve('https://corp.example/gitlab/platform/team/shop', forges), 'gitlab platform/team/shop');
  t.equal(resolve('https://corp.example/gitlab/platform/team/shop.git', forges), 'gitlab platform/team/shop');
  t.equal(resolve('https://corp.example/gitlab/platform/team/shop/-/tree/main', forges), 'gitlab platform/team/shop');
  t.equal(resolve('https://corp.example/forgejo/acme/shop', forges), 'forgejo acme/shop');
  t.equal(resolve('https://corp.example/forgejo/acme/shop.git', forges), 'forgejo acme/shop');
  t.match(
    resolve('https://corp.example/platform/team/shop', forges),
    /is on corp\.example but not below corp\.example\/gitlab \(GITLAB_URL\)/,
  );
  t.equal(resolve('git@corp.example:platform/team/shop.git', [GITHUB, GITLAB_SUB]), 'gitlab platform/team/shop', 'ssh has no base path');
  t.end();
});

t.test('the repository annotation as users write it for GitLab; a bare nested path without GitLab is explained', (t) => {
  t.equal(resolve('platform/team/app', [GITLAB_PORT]), 'gitlab platform/team/app', 'GitLab is the forge that applies');
  t.equal(resolve('https://corp.example:8443/platform/team/app', [GITHUB, GITLAB_PORT]), 'gitlab platform/team/app');
  t.equal(resolve('git@corp.example:platform/team/app.git', [GITHUB, GITLAB_PORT]), 'gitlab platform/team/app');
  t.match(
    resolve('platform/team/app', [GITHUB]),
    /does not name owner\/repo \(a path of nested groups names a GitLab project, and no GitLab is configured/,
  );
  t.match(resolve('platform/team/app', [GITHUB, GITLAB_SUB]), /write its URL, https:\/\/corp\.example\/gitlab\/platform\/team\/app/);
  t.match(resolve('https://github.com/platform/team/app', [GITHUB, GITLAB_SUB]), /does not name owner\/repo: fix the/);
  t.end();
});
