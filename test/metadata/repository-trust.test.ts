import t from 'tap';
import { ANNOTATION_PREFIX as P, LABEL_REVISION, LABEL_SOURCE, resolveTarget, type Defaults } from '../../src/metadata/resolve-target.js';
import { describePatterns, parseRepositoryPatterns, pickRepository, repositoryAllowed } from '../../src/metadata/repository-trust.js';

const NOT = 'is not owner/repo, owner/*, host[:port]/owner/repo or host[:port]/owner/*';

t.test('ALLOWED_REPOSITORIES patterns', (t) => {
  const rows: Array<[string, string[], string[]]> = [
    ['acme/*', ['acme/*'], []],
    [' Acme/Web , globex/* ,,', ['acme/web', 'globex/*'], []],
    ['acme', [], [`"acme" ${NOT}`]],
    ['Forgejo.example.com/acme/web', ['forgejo.example.com/acme/web'], []],
    ['forgejo.example.com/acme/*,acme/x', ['forgejo.example.com/acme/*', 'acme/x'], []],
    ['acme/web/extra/more', [], [`"acme/web/extra/more" ${NOT}`]],
    ['Host:3000/acme/web', ['host:3000/acme/web'], []],
    ['gitlab.corp.example:08443/platform/*', ['gitlab.corp.example:8443/platform/*'], []],
    ['gitlab.corp.example:8443/platform/team/*', ['gitlab.corp.example:8443/platform/team/*'], []],
    ['host:70000/acme/web', [], [`"host:70000/acme/web" ${NOT}`]],
    ['host:0/acme/web', [], [`"host:0/acme/web" ${NOT}`]],
    ['host:/acme/web', [], [`"host:/acme/web" ${NOT}`]],
    ['host:3000:1/acme/web', [], [`"host:3000:1/acme/web" ${NOT}`]],
    ['*/web', [], [`"*/web" ${NOT}`]],
    ['acme/we b,ok/x', ['ok/x'], [`"acme/we b" ${NOT}`]],
    ['', [], []],
  ];
  for (const [text, patterns, errors] of rows) {
    const r = parseRepositoryPatterns(text);
    t.same({ patterns: describePatterns(r.patterns), errors: r.errors }, { patterns: patterns.join(','), errors }, JSON.stringify(text));
  }
  t.end();
});

t.test('matching is case-insensitive; owner/* takes the whole owner; empty allows all', (t) => {
  const { patterns } = parseRepositoryPatterns('acme/*,globex/api');
  const rows: Array<[string, string, boolean]> = [
    ['acme', 'web', true],
    ['ACME', 'Web', true],
    ['globex', 'api', true],
    ['Globex', 'API', true],
    ['globex', 'web', false],
    ['acme-evil', 'web', false],
    ['other', 'acme', false],
  ];
  for (const [owner, repo, want] of rows) t.equal(repositoryAllowed(patterns, owner, repo), want, `${owner}/${repo}`);
  t.ok(repositoryAllowed([], 'anyone', 'anything'), 'no list: everything');
  t.end();
});

t.test('host/owner patterns match only on that forge; owner patterns on any', (t) => {
  const { patterns } = parseRepositoryPatterns('forgejo.example.com/platform/*,acme/web');
  const rows: Array<[string, string, string, boolean]> = [
    ['forgejo.example.com', 'platform', 'api', true],
    ['FORGEJO.example.com', 'Platform', 'API', true],
    ['github.com', 'platform', 'api', false],
    ['forgejo.example.com', 'acme', 'web', true],
    ['github.com', 'acme', 'web', true],
    ['forgejo.example.com', 'acme', 'api', false],
  ];
  for (const [host, owner, repo, want] of rows) t.equal(repositoryAllowed(patterns, owner, repo, host), want, `${host}/${owner}/${repo}`);
  t.end();
});

t.test('host:port patterns match only the forge on that port; a pattern without a port, the forge on its default port', (t) => {
  const { patterns } = parseRepositoryPatterns('corp.example:8443/platform/*,corp.example/acme/*,ghe.example:443/org/*');
  // [forge host as routed (the port only when not the default), its default port, owner, repo, allowed]
  const rows: Array<[string, number, string, string, boolean]> = [
    ['corp.example:8443', 443, 'platform/team', 'shop', true],
    ['corp.example:3000', 80, 'platform', 'shop', false],
    ['corp.example', 443, 'platform', 'shop', false],
    ['corp.example', 443, 'acme', 'web', true],
    ['corp.example:3000', 80, 'acme', 'web', false],
    ['corp.example:8443', 443, 'acme', 'web', false],
    ['ghe.example', 443, 'org', 'app', true],
    ['ghe.example', 80, 'org', 'app', false],
  ];
  for (const [host, defaultPort, owner, repo, want] of rows)
    t.equal(repositoryAllowed(patterns, owner, repo, host, defaultPort), want, `${host} (default ${defaultPort}) ${owner}/${repo}`);
  t.end();
});

t.test('REPOSITORY_SOURCE: the annotation always wins; labels count only with "any"', (t) => {
  t.same(pickRepository('acme/web', 'evil/x', 'annotation'), { value: 'acme/web', from: 'annotation' });
  t.same(pickRepository('acme/web', 'evil/x', 'any'), { value: 'acme/web', from: 'annotation' });
  t.same(pickRepository(undefined, 'acme/web', 'any'), { value: 'acme/web', from: 'label' });
  t.equal(pickRepository(undefined, 'acme/web', 'annotation'), undefined);
  t.equal(pickRepository(undefined, undefined, 'any'), undefined);
  t.end();
});

t.test('resolveTarget applies the trust boundary', (t) => {
  const source = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'apps' };
  const container = { name: 'app', image: 'ghcr.io/acme/web:1' };
  const SHA = '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
  const facts = (repo: string) => ({ labels: { [LABEL_SOURCE]: `https://github.com/${repo}`, [LABEL_REVISION]: SHA } });
  const base: Defaults = {
    cluster: 'c',
    environment: 'staging',
    description: 'd',
    forges: [{ forge: 'github', host: 'github.com' }],
    controllerVersion: '1',
  };
  const resolve = (annotations: Record<string, string>, labelRepo: string, d: Partial<Defaults>) =>
    resolveTarget(
      source,
      { kind: 'Deployment', namespace: 'apps', name: 'web', annotations, containers: [container] },
      container,
      facts(labelRepo),
      { ...base, ...d },
    );
  const allowAcme = { allowedRepositories: parseRepositoryPatterns('acme/*').patterns };
  t.match(resolve({}, 'acme/web', allowAcme), { target: { owner: 'acme', repo: 'web', sha: SHA } }, 'label inside the list');
  t.same(
    resolve({}, 'evil/web', allowAcme),
    { code: 'repository_not_allowed', skip: `evil/web (from the ${LABEL_SOURCE} label) is not in ALLOWED_REPOSITORIES` },
    'a label naming another owner is never written',
  );
  t.same(
    resolve({ repository: 'evil/ops' }, 'acme/web', allowAcme),
    { code: 'repository_not_allowed', skip: `evil/ops (from the ${P}repository annotation) is not in ALLOWED_REPOSITORIES` },
    'annotations are bound by the list too',
  );
  const annotationOnly = { repositorySource: 'annotation' as const };
  t.same(resolve({}, 'acme/web', annotationOnly), {
    code: 'no_repository',
    skip: `no ${P}repository annotation: REPOSITORY_SOURCE=annotation does not take the repository from image labels`,
  });
  t.match(
    resolve({ repository: 'acme/web' }, 'evil/web', annotationOnly),
    { target: { owner: 'acme', repo: 'web', sha: SHA } },
    'the annotation names the repository, the label still gives the commit',
  );
  t.match(resolve({}, 'evil/web', { repositorySource: 'any' }), { target: { owner: 'evil', repo: 'web' } }, 'default: labels are trusted');
  t.end();
});

t.test('GitLab groups: host/group/* covers every project below, subgroups included; host/group/sub/project one project', (t) => {
  const { patterns, errors } = parseRepositoryPatterns('gitlab.example.com/platform/*,gitlab.example.com/ops/infra/deploy');
  t.same(errors, []);
  const allowed = (owner: string, repo: string, host = 'gitlab.example.com') => repositoryAllowed(patterns, owner, repo, host);
  t.ok(allowed('platform', 'app'));
  t.ok(allowed('platform/team', 'app'), 'a subgroup');
  t.ok(allowed('Platform/Team/Deep', 'app'), 'any depth, any case');
  t.notOk(allowed('platformx', 'app'), 'not a group sharing a prefix');
  t.ok(allowed('ops/infra', 'deploy'));
  t.notOk(allowed('ops/infra', 'other'));
  t.notOk(allowed('ops', 'deploy'));
  t.notOk(allowed('platform/team', 'app', 'github.com'), 'only on that host');
  t.match(parseRepositoryPatterns('gitlab.example.com/a b/c').errors, [/is not owner\/repo/]);
  t.end();
});
