import t from 'tap';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import type { K8sObject } from '../../src/kube/kube-types.js';
import {
  ANNOTATION_PREFIX as P,
  bridgeAnnotations,
  isOptedIn,
  LABEL_REVISION,
  LABEL_SOURCE,
  LABEL_VERSION,
  needsLabels,
  reportedContainers,
  resolveTarget,
  type Defaults,
  type ImageFacts,
  type ReportTarget,
  type Resolution,
  type WorkloadInfo,
} from '../../src/metadata/resolve-target.js';

const SHA = '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
const SHA2 = '2222222222222222222222222222222222222222';
const IMAGE = 'ghcr.io/stefanprodan/podinfo:6.7.1';
const DIGEST = 'sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9';

const ks: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
const hr: SourceRef = { kind: 'HelmRelease', namespace: 'flux-system', name: 'podinfo' };
const defaults: Defaults = {
  cluster: 'prod-eu-1',
  environment: 'staging',
  description: 'Deployed by Flux',
  forges: [{ forge: 'github', host: 'github.com' }],
  controllerVersion: '0.1.0',
};
const noEnvDefaults: Defaults = {
  cluster: 'prod-eu-1',
  description: 'Deployed by Flux',
  forges: [{ forge: 'github', host: 'github.com' }],
  controllerVersion: '0.1.0',
};
const labels = (extra: Record<string, string> = {}): ImageFacts => ({
  labels: { [LABEL_SOURCE]: 'https://github.com/stefanprodan/podinfo', [LABEL_REVISION]: SHA, [LABEL_VERSION]: '6.7.1', ...extra },
  digest: DIGEST,
});
const container = { name: 'podinfod', image: IMAGE };
const workload = (annotations: Record<string, string> = {}): WorkloadInfo => ({
  kind: 'Deployment',
  namespace: 'apps',
  name: 'podinfo',
  annotations,
  containers: [container],
});

function target(r: Resolution): ReportTarget {
  if ('skip' in r) throw new Error(`unexpected skip: ${r.skip}`);
  return r.target;
}
/** `facts` null: the registry was not asked. */
const resolve = (a: Record<string, string>, facts: ImageFacts | null = labels(), d = defaults, src = ks) =>
  resolveTarget(src, workload(a), container, facts ?? undefined, d);

t.test('bridgeAnnotations', (t) => {
  const obj: K8sObject = {
    metadata: {
      name: 'podinfo',
      namespace: 'apps',
      annotations: { [`${P}environment`]: 'production', [`${P}team`]: 'web', 'deployment.kubernetes.io/revision': '3' },
    },
    spec: {
      template: {
        metadata: {
          annotations: {
            [`${P}environment`]: 'staging',
            [`${P}commit`]: SHA,
            'prometheus.io/scrape': 'true',
            'github-deployment-bridge.io.evil/x': 'no',
            [`x.${P}y`]: 'no',
          },
        },
      },
    },
  };
  t.same(
    bridgeAnnotations(obj),
    { environment: 'production', team: 'web', commit: SHA },
    'workload wins; template fills in; other prefixes ignored',
  );
  t.same(bridgeAnnotations({ metadata: { name: 'x' } }), {}, 'no annotations anywhere');
  t.same(
    bridgeAnnotations({ metadata: { name: 'x' }, spec: { template: { metadata: { annotations: { [`${P}auto-report`]: 'true' } } } } }),
    { 'auto-report': 'true' },
    'pod template only',
  );
  // Objects arrive as untyped JSON: a number where the type says string.
  t.same(
    bridgeAnnotations({ metadata: { name: 'x', annotations: { [`${P}team`]: 7 as unknown as string } } }),
    {},
    'non-string values dropped',
  );
  t.end();
});

t.test('isOptedIn', (t) => {
  const rows: Array<[string | undefined, boolean]> = [
    ['true', true],
    ['TRUE', true],
    [' True ', true],
    ['false', false],
    ['yes', false],
    ['1', false],
    ['', false],
    [undefined, false],
  ];
  for (const [v, want] of rows) t.equal(isOptedIn(v === undefined ? {} : { 'auto-report': v }), want, JSON.stringify(v));
  t.end();
});

t.test('needsLabels', (t) => {
  t.equal(needsLabels({ repository: 'org/app', commit: SHA }), false, 'both annotated');
  t.equal(needsLabels({ repository: 'org/app' }), true, 'commit missing');
  t.equal(needsLabels({ commit: SHA }), true, 'repository missing');
  t.equal(needsLabels({}), true, 'nothing');
  t.equal(needsLabels({ repository: '', commit: SHA }), true, 'empty repository counts as missing');
  t.end();
});

t.test('skip reasons: code and what to set', (t) => {
  const rows: Array<[string, Record<string, string>, ImageFacts | null, Defaults, string, RegExp[]]> = [
    [
      'no labels, no annotations',
      {},
      null,
      defaults,
      'no_repository',
      [new RegExp(IMAGE), new RegExp(LABEL_SOURCE), new RegExp(`${P}repository`)],
    ],
    ['labels without source', {}, { labels: { [LABEL_REVISION]: SHA } }, defaults, 'no_repository', [new RegExp(`${P}repository`)]],
    [
      'bad repository annotation',
      { repository: 'https://gitlab.com/org/app' },
      labels(),
      defaults,
      'bad_repository',
      [/not on github.com/, new RegExp(`${P}repository annotation`)],
    ],
    [
      'bad repository label',
      {},
      labels({ [LABEL_SOURCE]: 'https://gitlab.com/org/app' }),
      defaults,
      'bad_repository',
      [/not on github.com/, new RegExp(`${LABEL_SOURCE} label`)],
    ],
    [
      'repository label with too many segments',
      {},
      labels({ [LABEL_SOURCE]: 'https://github.com/org/app/tree/main' }),
      defaults,
      'bad_repository',
      [/does not name owner\/repo/],
    ],
    ['no commit', { repository: 'org/app' }, null, defaults, 'no_commit', [new RegExp(LABEL_REVISION), new RegExp(`${P}commit`)]],
    [
      'labels without revision',
      {},
      { labels: { [LABEL_SOURCE]: 'https://github.com/org/app' } },
      defaults,
      'no_commit',
      [new RegExp(`${P}commit`)],
    ],
    [
      'bad commit annotation',
      { commit: 'main' },
      labels(),
      defaults,
      'bad_commit',
      [/"main" is not 7-40 hex digits/, new RegExp(`${P}commit annotation`)],
    ],
    [
      'bad commit label',
      {},
      labels({ [LABEL_REVISION]: `main@sha1:${SHA}` }),
      defaults,
      'bad_commit',
      [new RegExp(`${LABEL_REVISION} label`)],
    ],
    ['no environment', {}, labels(), noEnvDefaults, 'no_environment', [new RegExp(`${P}environment`), /ENVIRONMENT/]],
    ['blank environment annotation, no default', { environment: '  ' }, labels(), noEnvDefaults, 'no_environment', [/ENVIRONMENT/]],
  ];
  for (const [name, a, facts, d, code, reasons] of rows) {
    const r = resolve(a, facts, d);
    t.ok('skip' in r, `${name}: skipped`);
    if ('skip' in r) {
      t.equal(r.code, code, `${name}: code`);
      for (const re of reasons) t.match(r.skip, re, `${name}: ${re.source}`);
    }
  }
  t.end();
});

t.test('label-only target: every field', (t) => {
  const tg = target(resolve({}));
  t.same(tg, {
    forge: 'github',
    owner: 'stefanprodan',
    repo: 'podinfo',
    environment: 'staging',
    sha: SHA,
    deploymentName: 'podinfo',
    cluster: 'prod-eu-1',
    description: 'Deployed by Flux',
    productionEnvironment: false,
    transientEnvironment: false,
    container: 'podinfod',
    image: IMAGE,
    payload: {
      cluster: 'prod-eu-1',
      namespace: 'apps',
      sourceNamespace: 'flux-system',
      kustomization: 'apps',
      deploymentName: 'podinfo',
      image: IMAGE,
      digest: DIGEST,
      version: '6.7.1',
      controllerVersion: '0.1.0',
    },
    warnings: [],
  });
  t.notOk('task' in tg, 'no task without deployment-name');
  t.notOk('environmentUrl' in tg);
  t.notOk('logUrl' in tg);
  t.same(Object.keys(tg.payload), [
    'cluster',
    'namespace',
    'sourceNamespace',
    'kustomization',
    'deploymentName',
    'image',
    'digest',
    'version',
    'controllerVersion',
  ]);
  t.end();
});

t.test('annotation overrides label, defaults last', (t) => {
  const tg = target(
    resolve({
      repository: 'git@github.com:acme/web.git',
      commit: SHA2.toUpperCase(),
      environment: 'qa',
      cluster: 'edge',
      description: 'Rolled out by Flux',
      'environment-url': 'https://{name}.{environment}.example.com',
    }),
  );
  t.equal(tg.owner, 'acme');
  t.equal(tg.repo, 'web');
  t.equal(tg.sha, SHA2, 'annotated commit, lower-cased');
  t.equal(tg.environment, 'qa');
  t.equal(tg.description, 'Rolled out by Flux');
  t.equal(tg.payload.cluster, 'edge');
  t.equal(tg.deploymentName, 'web', 'deployment name follows the annotated repository');
  t.equal(tg.environmentUrl, 'https://podinfo.qa.example.com');
  t.equal(tg.payload.version, '6.7.1', 'version still from the label');

  const annotatedOnly = target(resolve({ repository: 'acme/web', commit: SHA2 }, null));
  t.same([annotatedOnly.owner, annotatedOnly.repo, annotatedOnly.sha], ['acme', 'web', SHA2], 'no registry facts needed');
  t.notOk('digest' in annotatedOnly.payload);
  t.notOk('version' in annotatedOnly.payload);

  const d = target(resolve({}, labels(), { ...defaults, environmentUrl: 'https://default.example.com/{namespace}' }));
  t.equal(d.environment, 'staging', 'ENVIRONMENT default');
  t.equal(d.environmentUrl, 'https://default.example.com/apps', 'ENVIRONMENT_URL default');
  t.equal(target(resolve({ environment: '  prod  ' })).environment, 'prod', 'environment is trimmed');
  t.end();
});

t.test('empty annotations count as absent, as needsLabels says', (t) => {
  const repo = resolve({ repository: '' });
  t.notOk('skip' in repo, 'an empty repository annotation falls back to the label');
  const env = resolve({ environment: '' });
  t.notOk('skip' in env, 'an empty environment annotation falls back to ENVIRONMENT');
  t.end();
});

t.test('production environment', (t) => {
  const rows: Array<[string, Record<string, string>, boolean]> = [
    ['production', { environment: 'production' }, true],
    ['Production', { environment: 'Production' }, true],
    ['prod', { environment: 'prod' }, true],
    ['PROD', { environment: 'PROD' }, true],
    ['staging', { environment: 'staging' }, false],
    ['production-eu is not production', { environment: 'production-eu' }, false],
    ['annotation true on staging', { environment: 'staging', production: 'true' }, true],
    ['annotation yes on staging', { environment: 'staging', production: 'yes' }, true],
    ['annotation 1 on staging', { environment: 'staging', production: '1' }, true],
    ['annotation false on production', { environment: 'production', production: 'false' }, false],
    ['annotation no on prod', { environment: 'prod', production: 'no' }, false],
    ['annotation TRUE with spaces', { environment: 'qa', production: ' TRUE ' }, true],
  ];
  for (const [name, a, want] of rows) t.equal(target(resolve(a)).productionEnvironment, want, name);
  t.end();
});

t.test('deployment-name sets task', (t) => {
  const named = target(resolve({ 'deployment-name': 'podinfo-frontend' }));
  t.equal(named.deploymentName, 'podinfo-frontend');
  t.equal(named.task, 'podinfo-frontend');
  t.equal(named.payload.deploymentName, 'podinfo-frontend');
  const blank = target(resolve({ 'deployment-name': '   ' }));
  t.equal(blank.deploymentName, 'podinfo', 'blank name falls back to the repository');
  t.notOk('task' in blank);
  t.equal(target(resolve({ 'deployment-name': ' api ' })).task, 'api', 'trimmed');
  t.end();
});

t.test('payload: HelmRelease key and extras', (t) => {
  const tg = target(
    resolve(
      {
        team: 'web',
        service: 'frontend',
        component: 'ui',
        'slack-channel': '#deploys',
        owner: 'alice',
        release: 'r42',
        tag: 'blue',
        unknown: 'ignored',
      },
      labels(),
      defaults,
      hr,
    ),
  );
  t.same(tg.payload, {
    cluster: 'prod-eu-1',
    namespace: 'apps',
    sourceNamespace: 'flux-system',
    helmRelease: 'podinfo',
    deploymentName: 'podinfo',
    image: IMAGE,
    digest: DIGEST,
    version: '6.7.1',
    controllerVersion: '0.1.0',
    team: 'web',
    service: 'frontend',
    component: 'ui',
    slackChannel: '#deploys',
    owner: 'alice',
    release: 'r42',
    tag: 'blue',
  });
  t.notOk('kustomization' in tg.payload);
  t.notOk('slack-channel' in tg.payload);
  t.same(target(resolve({ team: '' })).payload.team, undefined, 'empty extras are left out');
  t.end();
});

t.test('URL templates', (t) => {
  const d: Defaults = {
    ...defaults,
    logUrlTemplate: 'https://logs.example.com/{cluster}/{namespace}/{name}?svc={service}&sha={sha}&env={environment}',
  };
  t.equal(
    target(resolve({}, labels(), d)).logUrl,
    `https://logs.example.com/prod-eu-1/apps/podinfo?svc=podinfo&sha=${SHA}&env=staging`,
    'service defaults to the workload name',
  );
  t.equal(
    target(resolve({ service: 'frontend', cluster: 'edge' }, labels(), d)).logUrl,
    `https://logs.example.com/edge/apps/podinfo?svc=frontend&sha=${SHA}&env=staging`,
    'annotated service and cluster',
  );
  t.equal(
    target(resolve({ 'log-url': 'https://ci.example.com/{sha}' }, labels(), d)).logUrl,
    `https://ci.example.com/${SHA}`,
    'annotation wins',
  );

  const bad = target(resolve({ 'log-url': 'http://ci.example.com/{sha}', 'environment-url': 'https://{pod}.example.com' }));
  t.notOk('logUrl' in bad);
  t.notOk('environmentUrl' in bad);
  t.equal(bad.warnings.length, 2);
  t.match(
    bad.warnings.find((w) => w.startsWith('log_url')),
    /log_url dropped: .*is not https/,
  );
  t.match(
    bad.warnings.find((w) => w.startsWith('environment_url')),
    /environment_url dropped: .*unknown \{pod\}/,
  );
  t.equal(bad.sha, SHA, 'a bad template never blocks the report');
  t.end();
});

t.test('transient previews, {kind}/{source} in URL templates, escaping, container choice', (t) => {
  const source = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'preview-42' };
  const workload = { kind: 'Deployment', namespace: 'pr-42', name: 'web', containers: [{ name: 'app', image: 'ghcr.io/acme/web:pr-42' }] };
  const facts = {
    labels: { 'org.opencontainers.image.source': 'https://github.com/acme/web', 'org.opencontainers.image.revision': 'a'.repeat(40) },
  };
  const defaults = {
    cluster: 'c',
    description: 'd',
    forges: [{ forge: 'github', host: 'github.com' }],
    controllerVersion: '1.0.0',
    environment: 'pr-42',
    transientEnvironments: ['pr-*'],
    logUrlTemplate: 'https://flux.example.com/resource/{kind}/{namespace}/{source}?q={name}',
  };
  const r = resolveTarget(source, { ...workload, annotations: {} }, workload.containers[0]!, facts, defaults);
  t.ok('target' in r && r.target.transientEnvironment, 'pr-* environment is transient');
  t.equal('target' in r && r.target.logUrl, 'https://flux.example.com/resource/Kustomization/pr-42/preview-42?q=web');
  const renamed = resolveTarget(source, { ...workload, annotations: {} }, workload.containers[0]!, facts, {
    ...defaults,
    logUrlTemplate: 'https://flux.example.com/resource/{kind}/{namespace}/{fluxObject}',
  });
  t.equal(
    'target' in renamed && renamed.target.logUrl,
    'https://flux.example.com/resource/Kustomization/pr-42/preview-42',
    '{fluxObject} as {source}',
  );
  const pinned = resolveTarget(source, { ...workload, annotations: { transient: 'false' } }, workload.containers[0]!, facts, defaults);
  t.notOk('target' in pinned && pinned.target.transientEnvironment, 'the annotation overrides the pattern');
  const escaped = resolveTarget(
    source,
    { ...workload, annotations: { 'log-url': 'https://logs.example.com/?q={name}', service: 'a b' }, name: 'web&x' },
    workload.containers[0]!,
    facts,
    { ...defaults, escapeUrlValues: true },
  );
  t.equal('target' in escaped && escaped.target.logUrl, 'https://logs.example.com/?q=web%26x');
  const containers = [{ name: 'app' }, { name: 'envoy' }, { name: 'worker' }];
  t.same(
    reportedContainers({ container: 'worker, app' }, containers).map((c) => c.name),
    ['app', 'worker'],
  );
  t.same(
    reportedContainers({}, containers).map((c) => c.name),
    ['app', 'envoy', 'worker'],
  );
  t.end();
});

t.test('environment_url: annotation > discovered route > ENVIRONMENT_URL', (t) => {
  const withDefault = { ...defaults, environmentUrl: 'https://default.example.com/{namespace}' };
  const routed = (a: Record<string, string>, d: Defaults) =>
    target(resolveTarget(ks, { ...workload(a), routeUrl: 'https://pr-42.preview.example.com/shop' }, container, labels(), d));
  const rows: Array<[string, Record<string, string>, Defaults, string | undefined]> = [
    ['the annotation wins over the route', { 'environment-url': 'https://{name}.example.com' }, withDefault, 'https://podinfo.example.com'],
    ['the route wins over ENVIRONMENT_URL', {}, withDefault, 'https://pr-42.preview.example.com/shop'],
    ['the route alone', {}, defaults, 'https://pr-42.preview.example.com/shop'],
  ];
  for (const [name, a, d, want] of rows) t.equal(routed(a, d).environmentUrl, want, name);
  t.equal(target(resolve({}, labels(), withDefault)).environmentUrl, 'https://default.example.com/apps', 'no route: the default');
  t.end();
});

t.test('ref: the ref annotation, else the Flux object branch; tier: production, else the tier annotation', (t) => {
  const flux = (branch: string) => ({ ...ks, annotations: { 'event.toolkit.fluxcd.io/branch': branch, 'other.io/x': 'y' } });
  const rows: Array<[string, Record<string, string>, typeof ks, Partial<ReportTarget>, string[]]> = [
    ['neither: no ref, no tier', {}, ks, {}, []],
    ['the annotation', { [`${P}ref`]: 'release/1.x' }, ks, { ref: { ref: 'release/1.x', tag: false, from: 'annotation' } }, []],
    ['an annotated tag', { [`${P}ref`]: 'refs/tags/v1.0.0' }, ks, { ref: { ref: 'v1.0.0', tag: true, from: 'annotation' } }, []],
    ['the annotation wins over Flux', { [`${P}ref`]: 'main' }, flux('feat'), { ref: { ref: 'main', tag: false, from: 'annotation' } }, []],
    ["the Flux object's branch", {}, flux('feature/login'), { ref: { ref: 'feature/login', tag: false, from: 'flux' } }, []],
    [
      'a bad annotation: dropped, Flux used',
      { [`${P}ref`]: 'a..b' },
      flux('feat'),
      { ref: { ref: 'feat', tag: false, from: 'flux' } },
      ['ref dropped'],
    ],
    ['production: tier production', { [`${P}environment`]: 'production', [`${P}tier`]: 'staging' }, ks, { tier: 'production' }, []],
    ['the tier annotation', { [`${P}tier`]: 'Testing' }, ks, { tier: 'testing' }, []],
    ['a bad tier: dropped', { [`${P}tier`]: 'qa' }, ks, {}, ['tier dropped']],
  ];
  for (const [name, a, src, want, warnings] of rows) {
    const got = target(
      resolveTarget(src, workload(bridgeAnnotations({ metadata: { name: 'w', annotations: a } })), container, labels(), defaults),
    );
    t.same({ ref: got.ref, tier: got.tier }, { ref: want.ref, tier: want.tier }, name);
    t.same(
      got.warnings.map((w) => w.split(':')[0]),
      warnings,
      `${name}: warnings`,
    );
  }
  const long = target(resolve({ ref: 'x'.repeat(2000) }));
  t.equal(long.ref, undefined, 'a value cut at the annotation bound is not a ref');
  t.match(long.warnings, [/ref dropped: .*\(1000 characters\) is longer than 255 characters/]);
  t.end();
});
