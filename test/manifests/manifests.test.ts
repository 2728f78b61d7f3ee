import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { SETTINGS } from '../../src/config/settings.js';
import { REPO_ROOT } from '../fixtures/locate.js';
import { runtimeStage } from '../harness/dockerfile.js';
import { PRODUCTION_MALLOC_ENV, entrypointNodeFlags } from '../harness/node-flags.js';
import { bridgeContainer, bridgeDeployment, find, readYaml, render, type Obj, type Service } from './render.js';

interface ClusterRole extends Obj {
  rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
}
interface NetworkPolicy extends Obj {
  spec: { policyTypes: string[]; ingress: Array<{ from: unknown; ports: Array<{ port: string | number }> }> };
}

/** Every directory a user may apply or compose, and the test's own compositions of the components. */
const RENDERED = [
  'manifests',
  'manifests/flux',
  'manifests/optional/registry-secrets',
  'manifests/optional/preview-routes',
  'manifests/optional/egress',
  'test/manifests/forgejo',
  'test/manifests/gitlab',
  'test/manifests/namespace-keys',
  'test/manifests/corporate-ca',
  'test/manifests/namespaced-rbac',
  'test/manifests/tenant-rbac',
  'test/manifests/github-app',
  'test/manifests/tenant',
  'test/manifests/own-image',
  'manifests/optional/spoke-reader',
  'test/manifests/fleet-hub',
  'test/manifests/fleet-secrets',
  'test/manifests/fleet-identity',
  'manifests/optional/kubeconfig-configmaps',
];

/** A ClusterRole's grants as `group/resource:verbs`, sorted, for comparing with a list. */
const grants = (role: ClusterRole) =>
  role.rules.flatMap((r) => r.resources.map((res) => `${r.apiGroups[0] || 'core'}/${res}:${[...r.verbs].sort().join(',')}`)).sort();

/** Checks that the rendered ClusterRoleBinding gives `role` to the bridge's ServiceAccount. */
const boundToBridge = (t: Test, objs: Obj[], role: ClusterRole) =>
  t.match(find(objs, 'ClusterRoleBinding'), {
    roleRef: { kind: 'ClusterRole', name: role.metadata.name },
    subjects: [{ kind: 'ServiceAccount', name: 'github-deployment-bridge', namespace: 'flux-system' }],
  });

/** The kinds and names of a rendering, sorted, to compare a component's output with the base's. */
const inventory = (objs: Obj[]) => objs.map((o) => `${o.kind}/${o.metadata.name}`).sort();

t.test('base manifests: least privilege, one replica, hardened pod', (t) => {
  const objs = render('manifests');
  t.same(objs.map((o) => o.kind).sort(), [
    'ClusterRole',
    'ClusterRoleBinding',
    'Deployment',
    'NetworkPolicy',
    'PersistentVolumeClaim',
    'Service',
    'ServiceAccount',
  ]);
  for (const o of objs) if (!o.kind.startsWith('Cluster')) t.equal(o.metadata.namespace, 'flux-system', `${o.kind} in flux-system`);

  const role = find(objs, 'ClusterRole') as ClusterRole;
  t.same(
    grants(role),
    [
      'apps/daemonsets:get,list,watch',
      'apps/deployments:get,list,watch',
      'apps/replicasets:get,list,watch',
      'apps/statefulsets:get,list,watch',
      'core/namespaces:get,list,watch',
      'core/pods:get,list,watch',
      'helm.toolkit.fluxcd.io/helmreleases:get,list,watch',
      'kustomize.toolkit.fluxcd.io/kustomizations:get,list,watch',
    ],
    'read-only; no Secrets and no routing objects in the base',
  );
  boundToBridge(t, objs, role);

  const dep = bridgeDeployment(objs);
  t.equal(dep.spec.replicas, 1);
  t.equal(dep.spec.strategy.type, 'Recreate', 'never two replicas on one SQLite volume');
  const pod = dep.spec.template.spec;
  t.match(pod.securityContext, { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
  const c = bridgeContainer(objs);
  t.match(c.securityContext, { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  t.match(c.livenessProbe.httpGet, { path: '/healthz' });
  t.match(c.readinessProbe.httpGet, { path: '/readyz' });
  t.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory, 'requests and a memory limit');
  t.match(c.image, /^ghcr\.io\/.+:\d+\.\d+\.\d+$/);
  t.same(c.volumeMounts.map((m) => m.mountPath).sort(), ['/data', '/etc/github-deployment-bridge/hmac']);
  t.match(
    c.env.find((e) => e.name === 'GITHUB_TOKEN'),
    { valueFrom: { secretKeyRef: { name: 'github-deployment-bridge-github', key: 'token', optional: true } } },
    'a Forgejo-only install needs no GitHub Secret',
  );
  t.match(
    c.env.find((e) => e.name === 'STATE_TOKEN'),
    { valueFrom: { secretKeyRef: { name: 'github-deployment-bridge-state', key: 'token', optional: true } } },
    '/state asks for a bearer token once its Secret exists',
  );
  t.same(
    c.env.find((e) => e.name === 'ALLOWED_REPOSITORIES'),
    { name: 'ALLOWED_REPOSITORIES', value: '' },
    'the trust boundary shipped as a setting to fill in (empty: open, warned at start)',
  );
  t.match(
    readFileSync(join(REPO_ROOT, 'manifests/deployment.yaml'), 'utf8'),
    /# The trust boundary \(docs\/trust-boundary\.md\)[^\n]*\n(\s*#[^\n]*\n)+\s*- \{ name: ALLOWED_REPOSITORIES/,
    'with a comment saying what empty means',
  );
  t.notOk(
    c.env.some((e) => e.name.startsWith('FORGEJO_') || e.name.startsWith('GITHUB_APP_')),
    'Forgejo and the GitHub App only with their components',
  );
  t.equal(find(objs, 'PersistentVolumeClaim').metadata.name, pod.volumes.find((v) => v.name === 'data')!.persistentVolumeClaim!.claimName);

  const np = find(objs, 'NetworkPolicy') as NetworkPolicy;
  t.same(np.spec.policyTypes, ['Ingress']);
  t.match(np.spec.ingress[0]!.from, [{ podSelector: { matchLabels: { app: 'notification-controller' } } }]);
  t.equal(np.spec.ingress.length, 2, 'notification-controller and metrics scraping only (test/manifests/network-policy.test.ts)');
  t.end();
});

t.test('one port: PORT, the container port, probes, Service, NetworkPolicy and the Provider address agree; not 8080', (t) => {
  const objs = render('manifests');
  const c = bridgeContainer(objs);
  const port = Number(c.env.find((e) => e.name === 'PORT')?.value);
  t.not(port, 8080, "Flux's allow-scraping opens 8080 of every flux-system pod to all namespaces");
  t.equal(String(port), SETTINGS.port.rows[0]!.shown.replaceAll('`', ''), "PORT's default, so the image alone listens there too");
  t.same(c.ports, [{ name: 'http', containerPort: port, protocol: 'TCP' }]);
  t.equal(c.livenessProbe.httpGet.port, 'http');
  t.equal(c.readinessProbe.httpGet.port, 'http');
  const svc = find(objs, 'Service') as Service;
  t.same(svc.spec.ports, [{ name: 'http', port, targetPort: 'http', protocol: 'TCP' }]);
  t.same(svc.spec.selector, bridgeDeployment(objs).spec.template.metadata.labels, 'the Service selects the pod');
  for (const rule of (find(objs, 'NetworkPolicy') as NetworkPolicy).spec.ingress) t.same(rule.ports, [{ port: 'http', protocol: 'TCP' }]);
  const provider = find(render('manifests/flux'), 'Provider') as Obj & { spec: { address: string } };
  t.equal(provider.spec.address, `http://${svc.metadata.name}.${svc.metadata.namespace ?? ''}.svc.cluster.local:${port}/webhook`);
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  t.match(dockerfile, new RegExp(`^EXPOSE ${port}$`, 'm'));
  t.end();
});

t.test('every variable a rendered Deployment sets is a setting the bridge reads (or Node, for a corporate CA)', (t) => {
  const known = new Set([...Object.values(SETTINGS).flatMap((s) => s.rows.flatMap((r) => r.names)), 'NODE_EXTRA_CA_CERTS']);
  for (const dir of RENDERED)
    for (const o of render(dir).filter((x) => x.kind === 'Deployment'))
      for (const e of bridgeContainer([o]).env) t.ok(known.has(e.name), `${dir}: ${e.name}`);
  t.end();
});

t.test('optional registry-secrets component: get on Secrets and ServiceAccounts, bound to the bridge', (t) => {
  const secrets = render('manifests/optional/registry-secrets');
  const secretsRole = find(secrets, 'ClusterRole') as ClusterRole;
  t.same(secretsRole.rules, [{ apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['get'] }], 'get only, no list');
  boundToBridge(t, secrets, secretsRole);
  t.end();
});

t.test('Dockerfile: multi-stage, LTS slim runtime, non-root numeric user, signals, labels', (t) => {
  const text = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  t.equal((text.match(/^FROM /gm) ?? []).length, 2, 'build and runtime stages');
  t.match(text, /^FROM \$\{NODE_IMAGE\} AS build$/m, 'no pinned --platform: buildx builds each target platform (release.yml)');
  t.match(text, /^ARG NODE_IMAGE=node:24\.\d+\.\d+-bookworm-slim$/m, 'an exact Node.js 24 release (LTS until April 2028)');
  t.match(text, /npm prune --omit=dev/, 'runtime gets production dependencies only');
  t.match(text, /^USER 65532:65532$/m);
  t.match(text, /^STOPSIGNAL SIGTERM$/m);
  t.match(text, /^ENTRYPOINT \["node", ("--[^"]+", )*"dist\/src\/main\.js"\]$/m, 'exec form: node is PID 1 and receives SIGTERM');
  t.ok(
    entrypointNodeFlags(runtimeStage(text).entrypoint).some((f) => f.startsWith('--max-old-space-size=')),
    'the heap cap the benchmarks measured ships (test/harness/node-flags.ts passes the same flags to every test bridge)',
  );
  for (const label of ['source', 'revision', 'version']) t.match(text, new RegExp(`org\\.opencontainers\\.image\\.${label}=`));
  const ignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const p of ['node_modules', '.git', 'data']) t.ok(ignore.includes(p), `.dockerignore has ${p}`);
  t.end();
});

t.test('the node flags of an ENTRYPOINT: only from the exec form that starts node on dist/src/main.js', (t) => {
  t.same(entrypointNodeFlags(['node', 'dist/src/main.js']), []);
  t.same(entrypointNodeFlags(['node', '--a=1', '--b', 'dist/src/main.js']), ['--a=1', '--b']);
  t.throws(() => entrypointNodeFlags(['node', 'other.js']), /is not \["node"/);
  t.throws(() => entrypointNodeFlags([]), /is not \["node"/, 'no ENTRYPOINT');
  t.throws(() => entrypointNodeFlags(['node', 'x.js', 'dist/src/main.js']), /'x\.js' where only --flags belong/);
  t.same(
    PRODUCTION_MALLOC_ENV,
    { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '131072' },
    "the Dockerfile's malloc variables reach every test bridge",
  );
  t.end();
});

t.test('optional preview-routes component: get/list on the routing objects, bound to the bridge', (t) => {
  const objs = render('manifests/optional/preview-routes');
  t.same(objs.map((o) => o.kind).sort(), ['ClusterRole', 'ClusterRoleBinding']);
  const role = find(objs, 'ClusterRole') as ClusterRole;
  t.same(grants(role), ['core/services:get,list', 'gateway.networking.k8s.io/httproutes:get,list', 'networking.k8s.io/ingresses:get,list']);
  t.not(role.metadata.name, 'github-deployment-bridge', 'a role of its own, not a second copy of the base role');
  boundToBridge(t, objs, role);
  t.end();
});

/** The token forges' optional components: the URL, the token file from a read-only Secret mount, extra settings. */
const TOKEN_FORGES = [
  { forge: 'forgejo', url: ['FORGEJO_URL', 'https://forgejo.example.com'], token: 'FORGEJO_TOKEN', extra: {} },
  { forge: 'gitlab', url: ['GITLAB_URL', 'https://gitlab.example.com'], token: 'GITLAB_TOKEN', extra: { GITLAB_AGENT_ID: '1' } },
] as const;

for (const { forge, url, token, extra } of TOKEN_FORGES)
  t.test(`optional ${forge} component: URL, token file from a read-only Secret mount, nothing else changed`, (t) => {
    const base = render('manifests');
    const objs = render(`test/manifests/${forge}`);
    t.same(inventory(objs), inventory(base), 'no Secret rendered');
    const c = bridgeContainer(objs);
    const env = new Map(c.env.map((e) => [e.name, e]));
    t.equal(env.get(url[0])?.value, url[1]);
    for (const [name, value] of Object.entries(extra)) t.equal(env.get(name)?.value, value, name);
    const tokenFile = env.get(`${token}_FILE`)?.value ?? '';
    t.notOk(env.has(token), 'the token is a file, never a plain variable');
    const mount = c.volumeMounts.find((m) => tokenFile.startsWith(`${m.mountPath}/`));
    t.match(
      mount,
      { name: forge, mountPath: `/etc/github-deployment-bridge/${forge}`, readOnly: true },
      'token file inside a read-only mount',
    );
    t.equal(tokenFile, `${mount?.mountPath ?? ''}/token`, 'the Secret key `token`');
    const volumes = bridgeDeployment(objs).spec.template.spec.volumes;
    t.same(volumes.find((v) => v.name === mount?.name)?.secret, { secretName: `github-deployment-bridge-${forge}` });
    for (const name of ['WEBHOOK_TOKEN_FILE', 'GITHUB_TOKEN']) t.ok(env.has(name), `base ${name} kept`);
    t.equal(env.get('CLUSTER_NAME')?.value, 'prod-eu', "the overlay's cluster name");
    t.notOk(
      bridgeContainer(render('manifests')).env.some((e) => e.name === url[0] || e.name === 'CLUSTER_NAME'),
      'no placeholder in the base',
    );
    t.notOk(
      readYaml(`manifests/optional/${forge}/deployment-patch.yaml`).some((o) => JSON.stringify(o).includes(url[0] + '"')),
      'no placeholder URL in the component',
    );
    t.same(
      c.volumeMounts.filter((m) => m.name !== forge),
      bridgeContainer(base).volumeMounts,
      'base mounts kept',
    );

    t.match(readYaml(`manifests/optional/${forge}/secret.example.yaml`), [
      { kind: 'Secret', metadata: { name: `github-deployment-bridge-${forge}`, namespace: 'flux-system' }, stringData: { token: String } },
    ]);
    t.end();
  });

t.test('optional namespace-keys component: WEBHOOK_TOKEN_DIR on a read-only Secret mount, the shared key kept', (t) => {
  const base = render('manifests');
  const objs = render('test/manifests/namespace-keys');
  t.same(inventory(objs), inventory(base), 'no Secret rendered');
  const c = bridgeContainer(objs);
  const env = new Map(c.env.map((e) => [e.name, e]));
  const dir = env.get('WEBHOOK_TOKEN_DIR')?.value;
  t.equal(dir, '/etc/github-deployment-bridge/namespace-keys');
  t.match(
    c.volumeMounts.find((m) => m.mountPath === dir),
    { name: 'namespace-keys', readOnly: true },
  );
  t.notOk(
    c.volumeMounts.some((m) => 'subPath' in m),
    'no subPath: the kubelet updates the keys',
  );
  t.ok(env.has('WEBHOOK_TOKEN_FILE'), "flux-system's shared key kept");
  const volumes = bridgeDeployment(objs).spec.template.spec.volumes;
  t.same(volumes.find((v) => v.name === 'namespace-keys')?.secret, { secretName: 'github-deployment-bridge-namespace-keys' });
  const [secret] = readYaml('manifests/optional/namespace-keys/secret.example.yaml');
  t.match(secret, { kind: 'Secret', metadata: { name: 'github-deployment-bridge-namespace-keys', namespace: 'flux-system' } });
  for (const ns of Object.keys((secret as unknown as { stringData: Record<string, string> }).stringData))
    t.match(ns, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, `key ${ns} is a namespace name`);
  t.end();
});

t.test('optional corporate-ca component: NODE_EXTRA_CA_CERTS names the bundle of a read-only ConfigMap mount', (t) => {
  const base = render('manifests');
  const objs = render('test/manifests/corporate-ca');
  t.same(inventory(objs), inventory(base), 'nothing but the patch rendered');
  const c = bridgeContainer(objs);
  const file = new Map(c.env.map((e) => [e.name, e])).get('NODE_EXTRA_CA_CERTS')?.value ?? '';
  t.equal(file, '/etc/github-deployment-bridge/corporate-ca/ca.crt');
  const mount = c.volumeMounts.find((m) => file.startsWith(`${m.mountPath}/`));
  t.match(mount, { name: 'corporate-ca', readOnly: true });
  const volumes = bridgeDeployment(objs).spec.template.spec.volumes;
  t.same(volumes.find((v) => v.name === 'corporate-ca')?.configMap, { name: 'github-deployment-bridge-corporate-ca' });
  const [map] = readYaml('manifests/optional/corporate-ca/configmap.example.yaml');
  t.match(map, {
    kind: 'ConfigMap',
    metadata: { name: 'github-deployment-bridge-corporate-ca', namespace: 'flux-system' },
    data: { 'ca.crt': /BEGIN CERTIFICATE/ },
  });
  t.end();
});

t.test('namespaced permissions: the base reads per namespace, no cluster-wide grant but named namespaces; Secrets per namespace', (t) => {
  const base = render('manifests');
  const objs = render('test/manifests/namespaced-rbac');
  t.notOk(
    objs.some((o) => o.kind === 'ClusterRole' && o.metadata.name === 'github-deployment-bridge'),
    "the base's ClusterRole is gone",
  );
  t.notOk(objs.some((o) => o.kind === 'ClusterRoleBinding' && o.metadata.name === 'github-deployment-bridge'));
  const namespaces = find(objs, 'ClusterRole', 'github-deployment-bridge-namespaces') as ClusterRole & {
    rules: Array<{ resourceNames?: string[] }>;
  };
  t.same(grants(namespaces), ['core/namespaces:get'], 'only get on namespaces, cluster-wide');
  const env = new Map(bridgeContainer(objs).env.map((e) => [e.name, e.value]));
  const watched = (env.get('WATCH_NAMESPACES') ?? '').split(',');
  t.ok(watched.length > 0 && watched[0] !== '', 'WATCH_NAMESPACES is set (a Role cannot grant a cluster-wide list)');
  t.same(namespaces.rules[0]?.resourceNames, watched, 'the namespaces named are the watched ones');

  const tenant = render('test/manifests/tenant-rbac');
  const reads = find(tenant, 'Role', 'github-deployment-bridge') as ClusterRole;
  const clusterReads = find(base, 'ClusterRole', 'github-deployment-bridge') as ClusterRole;
  t.same(
    grants(reads),
    grants(clusterReads).filter((g) => g !== 'core/namespaces:get,list,watch'),
    "the base's reads, namespaced (namespaces themselves through the ClusterRole above)",
  );
  const secrets = find(tenant, 'Role', 'github-deployment-bridge-registry-secrets') as ClusterRole;
  t.same(grants(secrets), ['core/secrets:get', 'core/serviceaccounts:get']);
  for (const binding of tenant.filter((o) => o.kind === 'RoleBinding'))
    t.match(binding, {
      metadata: { namespace: 'apps' },
      subjects: [{ kind: 'ServiceAccount', name: 'github-deployment-bridge', namespace: 'flux-system' }],
    });
  t.notOk(
    tenant.some((o) => o.kind.startsWith('Cluster')),
    'nothing cluster-wide in a tenant',
  );
  t.end();
});

t.test('no write verbs anywhere: every rendered role only reads', (t) => {
  const roles = RENDERED.flatMap(render).filter((o): o is ClusterRole => o.kind === 'ClusterRole' || o.kind === 'Role');
  t.same([...new Set(roles.map((r) => r.metadata.name))].sort(), [
    'github-deployment-bridge',
    'github-deployment-bridge-kubeconfig-configmaps',
    'github-deployment-bridge-kubeconfig-secrets',
    'github-deployment-bridge-namespaces',
    'github-deployment-bridge-preview-routes',
    'github-deployment-bridge-reader',
    'github-deployment-bridge-registry-secrets',
  ]);
  for (const role of roles)
    for (const rule of role.rules)
      t.same(
        rule.verbs.filter((v) => !['get', 'list', 'watch'].includes(v)),
        [],
        `${role.metadata.name}: ${rule.resources.join(',')}`,
      );
  t.end();
});

t.test('optional GitHub App component: App id and key from one Secret, the key a read-only file, no GITHUB_TOKEN', (t) => {
  const base = render('manifests');
  const objs = render('test/manifests/github-app');
  t.same(inventory(objs), inventory(base), 'no Secret rendered');
  const c = bridgeContainer(objs);
  const env = new Map(c.env.map((e) => [e.name, e]));
  t.notOk(env.has('GITHUB_TOKEN'), 'the bridge refuses a token and an App at once');
  t.same(env.get('GITHUB_APP_ID')?.valueFrom, { secretKeyRef: { name: 'github-deployment-bridge-github-app', key: 'app-id' } });
  t.same(env.get('GITHUB_APP_INSTALLATION_ID')?.valueFrom, {
    secretKeyRef: { name: 'github-deployment-bridge-github-app', key: 'installation-id', optional: true },
  });
  t.notOk(env.has('GITHUB_APP_PRIVATE_KEY'), 'the key is a file, never a plain variable');
  const keyPath = env.get('GITHUB_APP_PRIVATE_KEY_PATH')?.value ?? '';
  const mount = c.volumeMounts.find((m) => keyPath.startsWith(`${m.mountPath}/`));
  t.match(mount, { name: 'github-app', readOnly: true }, 'key file inside a read-only mount');
  const volume = bridgeDeployment(objs).spec.template.spec.volumes.find((v) => v.name === mount?.name);
  t.same(volume?.secret, {
    secretName: 'github-deployment-bridge-github-app',
    items: [{ key: 'private-key.pem', path: keyPath.slice((mount?.mountPath.length ?? 0) + 1) }],
    defaultMode: 0o440,
  });
  const baseEnv = bridgeContainer(base).env.filter((e) => e.name !== 'GITHUB_TOKEN');
  t.same(
    c.env.filter((e) => !e.name.startsWith('GITHUB_APP_')),
    baseEnv,
    'every other base variable kept, in order',
  );
  t.same(
    c.volumeMounts.filter((m) => m.name !== 'github-app'),
    bridgeContainer(base).volumeMounts,
    'base mounts kept',
  );
  t.match(readYaml('manifests/optional/github-app/secret.example.yaml'), [
    {
      kind: 'Secret',
      metadata: { name: 'github-deployment-bridge-github-app', namespace: 'flux-system' },
      stringData: { 'app-id': /^\d+$/, 'private-key.pem': /BEGIN/ },
    },
  ]);
  t.end();
});
