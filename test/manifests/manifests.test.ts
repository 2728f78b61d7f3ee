import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../fixtures/locate.js';

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };

// The parts of rendered objects the tests look inside, as YAML has them (not the client's V1 classes: they rename `from`).
interface ClusterRole extends Obj {
  rules: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
}
interface Container {
  name: string;
  env: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } } }>;
  securityContext: unknown;
  livenessProbe: { httpGet: unknown };
  readinessProbe: { httpGet: unknown };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  image: string;
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
interface Deployment extends Obj {
  spec: {
    replicas: number;
    strategy: { type: string };
    template: {
      spec: {
        securityContext: unknown;
        containers: Container[];
        volumes: Array<{ name: string; persistentVolumeClaim?: { claimName: string }; secret?: { secretName: string } }>;
      };
    };
  };
}
interface Secret extends Obj {
  stringData: Record<string, string>;
}
interface NetworkPolicy extends Obj {
  spec: { policyTypes: string[]; ingress: Array<{ from: unknown }> };
}

/** Renders a kustomize directory with kubectl, as a user would (`kubectl kustomize`). */
function render(dir: string): Obj[] {
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', join(REPO_ROOT, dir)], { encoding: 'utf8' });
  } catch (err) {
    throw new Error('kubectl kustomize failed: install kubectl (Debian package kubernetes-client; .ci/run does)', { cause: err });
  }
  return parseAllDocuments(out).map((d) => d.toJS() as Obj);
}

/** Every directory a user may apply or compose, and the test's own composition of the Forgejo component. */
const RENDERED = [
  'manifests',
  'manifests/flux',
  'manifests/optional/registry-secrets',
  'manifests/optional/preview-routes',
  'test/manifests/forgejo',
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

/** The bridge's container of a rendered install. */
const bridgeContainer = (objs: Obj[]) =>
  (find(objs, 'Deployment') as Deployment).spec.template.spec.containers.find((c) => c.name === 'bridge')!;

const find = (objs: Obj[], kind: string, name?: string) => {
  const o = objs.find((x) => x.kind === kind && (name === undefined || x.metadata.name === name));
  if (!o) throw new Error(`${kind} ${name ?? ''} not rendered`);
  return o;
};

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

  const dep = find(objs, 'Deployment') as Deployment;
  t.equal(dep.spec.replicas, 1);
  t.equal(dep.spec.strategy.type, 'Recreate', 'never two replicas on one SQLite volume');
  const pod = dep.spec.template.spec;
  t.match(pod.securityContext, { runAsNonRoot: true, runAsUser: 65532, seccompProfile: { type: 'RuntimeDefault' } });
  const c = pod.containers[0]!;
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
  t.notOk(
    c.env.some((e) => e.name.startsWith('FORGEJO_')),
    'Forgejo only with its component',
  );
  t.equal(find(objs, 'PersistentVolumeClaim').metadata.name, pod.volumes.find((v) => v.name === 'data')!.persistentVolumeClaim!.claimName);

  const np = find(objs, 'NetworkPolicy') as NetworkPolicy;
  t.same(np.spec.policyTypes, ['Ingress']);
  t.match(np.spec.ingress[0]!.from, [{ podSelector: { matchLabels: { app: 'notification-controller' } } }]);
  t.equal(np.spec.ingress.length, 2, 'notification-controller and metrics scraping only');
  t.end();
});

t.test('Flux side and the optional Secrets component', (t) => {
  const flux = render('manifests/flux');
  t.match(find(flux, 'Provider'), {
    apiVersion: 'notification.toolkit.fluxcd.io/v1beta3',
    spec: { type: 'generic-hmac', address: /:8080\/webhook$/, secretRef: { name: 'github-deployment-bridge-hmac' } },
  });
  t.match(find(flux, 'Alert'), {
    apiVersion: 'notification.toolkit.fluxcd.io/v1beta3',
    spec: {
      eventSources: [
        { kind: 'Kustomization', name: '*' },
        { kind: 'HelmRelease', name: '*' },
      ],
    },
  });
  const secrets = render('manifests/optional/registry-secrets');
  const secretsRole = find(secrets, 'ClusterRole') as ClusterRole;
  t.same(secretsRole.rules, [{ apiGroups: [''], resources: ['secrets', 'serviceaccounts'], verbs: ['get'] }], 'get only, no list');
  boundToBridge(t, secrets, secretsRole);
  t.end();
});

t.test('Dockerfile: multi-stage, LTS slim runtime, non-root numeric user, signals, labels', (t) => {
  const text = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  t.equal((text.match(/^FROM /gm) ?? []).length, 2, 'build and runtime stages');
  t.match(text, /^ARG NODE_IMAGE=node:(22|24)-bookworm-slim$/m);
  t.match(text, /npm prune --omit=dev/, 'runtime gets production dependencies only');
  t.match(text, /^USER 65532:65532$/m);
  t.match(text, /^STOPSIGNAL SIGTERM$/m);
  t.match(text, /^ENTRYPOINT \["node", "dist\/src\/main\.js"\]$/m, 'exec form: node is PID 1 and receives SIGTERM');
  for (const label of ['source', 'revision', 'version']) t.match(text, new RegExp(`org\\.opencontainers\\.image\\.${label}=`));
  const ignore = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8').split('\n');
  for (const p of ['node_modules', '.git', 'data']) t.ok(ignore.includes(p), `.dockerignore has ${p}`);
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

t.test('optional Forgejo component: URL, token file from a read-only Secret mount, nothing else changed', (t) => {
  const base = render('manifests');
  const objs = render('test/manifests/forgejo');
  t.same(
    objs.map((o) => `${o.kind}/${o.metadata.name}`).sort(),
    base.map((o) => `${o.kind}/${o.metadata.name}`).sort(),
    'no Secret rendered',
  );
  const c = bridgeContainer(objs);
  const env = new Map(c.env.map((e) => [e.name, e]));
  t.equal(env.get('FORGEJO_URL')?.value, 'https://forgejo.example.com');
  const tokenFile = env.get('FORGEJO_TOKEN_FILE')?.value ?? '';
  t.notOk(env.has('FORGEJO_TOKEN'), 'the token is a file, never a plain variable');
  const mount = c.volumeMounts.find((m) => tokenFile.startsWith(`${m.mountPath}/`));
  t.match(
    mount,
    { name: 'forgejo', mountPath: '/etc/github-deployment-bridge/forgejo', readOnly: true },
    'token file inside a read-only mount',
  );
  t.equal(tokenFile, `${mount?.mountPath ?? ''}/token`, 'the Secret key `token`');
  const volumes = (find(objs, 'Deployment') as Deployment).spec.template.spec.volumes;
  t.same(volumes.find((v) => v.name === mount?.name)?.secret, { secretName: 'github-deployment-bridge-forgejo' });
  for (const name of ['CLUSTER_NAME', 'WEBHOOK_TOKEN_FILE', 'GITHUB_TOKEN']) t.ok(env.has(name), `base ${name} kept`);
  t.same(
    c.volumeMounts.filter((m) => m.name !== 'forgejo'),
    bridgeContainer(base).volumeMounts,
    'base mounts kept',
  );

  const example = parseAllDocuments(readFileSync(join(REPO_ROOT, 'manifests/optional/forgejo/secret.example.yaml'), 'utf8')).map(
    (d) => d.toJS() as Secret,
  );
  t.match(example, [
    { kind: 'Secret', metadata: { name: 'github-deployment-bridge-forgejo', namespace: 'flux-system' }, stringData: { token: String } },
  ]);
  t.end();
});

t.test('no write verbs anywhere: every rendered role only reads', (t) => {
  const roles = RENDERED.flatMap(render).filter((o): o is ClusterRole => o.kind === 'ClusterRole' || o.kind === 'Role');
  t.same([...new Set(roles.map((r) => r.metadata.name))].sort(), [
    'github-deployment-bridge',
    'github-deployment-bridge-preview-routes',
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
