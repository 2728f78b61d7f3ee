/**
 * The fleet's manifests (docs/fleet.md): the spoke's read-only identity, the Role on Flux's named kubeconfig
 * Secrets, the hub's mount of the bridge's own kubeconfigs, and the overlays docs/fleet.md gives, rendered with
 * `kubectl kustomize` and read the way the bridge reads its settings.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import t, { type Test } from 'tap';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { REPO_ROOT } from '../fixtures/locate.js';
import { bridgeContainer, bridgeDeployment, find, readYaml, render, type Obj } from './render.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
interface Role extends Obj {
  rules: Rule[];
}
interface Binding extends Obj {
  roleRef: { kind: string; name: string };
  subjects: Array<{ kind: string; name: string; namespace: string }>;
}

/** A role's grants as `group/resource:verbs`, sorted. */
const grants = (role: Role) =>
  role.rules.flatMap((r) => r.resources.map((res) => `${r.apiGroups[0] || 'core'}/${res}:${[...r.verbs].sort().join(',')}`)).sort();
const FLUX_GROUPS = /^(kustomize|helm)\.toolkit\.fluxcd\.io\//;

t.test('spoke-reader: the base reads below the Flux object, bound to its own ServiceAccount, with a token Secret', (t) => {
  const objs = render('manifests/optional/spoke-reader');
  t.same(objs.map((o) => `${o.kind}/${o.metadata.name}`).sort(), [
    'ClusterRole/github-deployment-bridge-reader',
    'ClusterRoleBinding/github-deployment-bridge-reader',
    'Namespace/github-deployment-bridge',
    'Secret/github-deployment-bridge-reader-token',
    'ServiceAccount/github-deployment-bridge-reader',
  ]);
  const base = grants(find(render('manifests'), 'ClusterRole', 'github-deployment-bridge') as Role);
  const role = find(objs, 'ClusterRole') as Role;
  t.same(
    grants(role),
    base.filter((g) => !FLUX_GROUPS.test(g)),
    "the base's reads without Flux's kinds (read in the hub)",
  );
  t.ok(
    role.rules.every((r) => r.verbs.every((v) => ['get', 'list', 'watch'].includes(v))),
    'read-only',
  );
  t.notOk(
    grants(role).some((g) => g.startsWith('core/secrets')),
    'no Secrets in the spoke',
  );
  t.match(find(objs, 'ClusterRoleBinding'), {
    roleRef: { kind: 'ClusterRole', name: role.metadata.name },
    subjects: [{ kind: 'ServiceAccount', name: 'github-deployment-bridge-reader', namespace: 'github-deployment-bridge' }],
  });
  t.equal((find(objs, 'ClusterRoleBinding') as Binding).subjects.length, 1, 'no one else');
  const sa = find(objs, 'ServiceAccount') as Obj & { automountServiceAccountToken: boolean };
  t.equal(sa.metadata.namespace, 'github-deployment-bridge');
  t.equal(sa.automountServiceAccountToken, false, 'nothing runs as it in the spoke');
  const token = find(objs, 'Secret') as Obj & { type: string; metadata: { annotations: Record<string, string> } };
  t.equal(token.type, 'kubernetes.io/service-account-token');
  t.equal(token.metadata.annotations['kubernetes.io/service-account.name'], sa.metadata.name, "the reader's long-lived token");
  t.equal(token.metadata.namespace, sa.metadata.namespace);
  t.end();
});

t.test('kubeconfig-secrets: get on the listed Secrets of one Flux namespace, nothing else', (t) => {
  const objs = render('test/manifests/fleet-secrets');
  t.same(objs.map((o) => o.kind).sort(), ['Role', 'RoleBinding'], 'namespaced: no ClusterRole');
  const role = find(objs, 'Role') as Role;
  t.equal(role.metadata.namespace, 'fleet', 'rendered into the namespace of the Flux objects');
  t.same(role.rules, [
    { apiGroups: [''], resources: ['secrets'], resourceNames: ['prod-eu-kubeconfig', 'prod-us-kubeconfig'], verbs: ['get'] },
  ]);
  t.match(find(objs, 'RoleBinding'), {
    metadata: { namespace: 'fleet' },
    roleRef: { kind: 'Role', name: role.metadata.name },
    subjects: [{ kind: 'ServiceAccount', name: 'github-deployment-bridge', namespace: 'flux-system' }],
  });
  // As shipped, before the user lists names: a placeholder, never an empty list (RBAC reads [] as every Secret).
  const shipped = find(readYaml('manifests/optional/kubeconfig-secrets/rbac.yaml'), 'Role') as Role;
  t.equal(shipped.rules.length, 1);
  t.ok((shipped.rules[0]!.resourceNames ?? []).length > 0, 'shipped with resourceNames, so it never grants the whole namespace');
  t.end();
});

t.test('cluster-kubeconfigs: CLUSTER_KUBECONFIG_DIR is the read-only mount of the clusters Secret, and no new grant', (t) => {
  const objs = render('test/manifests/fleet-hub');
  const base = render('manifests');
  t.same(objs.map((o) => `${o.kind}/${o.metadata.name}`).sort(), base.map((o) => `${o.kind}/${o.metadata.name}`).sort());
  t.same(find(objs, 'ClusterRole'), find(base, 'ClusterRole'), 'the hub reads no Secret for its own kubeconfigs');
  const c = bridgeContainer(objs);
  const dir = c.env.find((e) => e.name === 'CLUSTER_KUBECONFIG_DIR')?.value;
  const mount = c.volumeMounts.find((m) => m.mountPath === dir) as { name: string; readOnly?: boolean; subPath?: string } | undefined;
  t.ok(mount, 'the directory is mounted');
  t.equal(mount?.readOnly, true);
  t.equal(mount?.subPath, undefined, 'without subPath, so the kubelet updates the files');
  const volume = bridgeDeployment(objs).spec.template.spec.volumes.find((v) => v.name === mount?.name);
  t.equal(volume?.secret?.secretName, 'github-deployment-bridge-clusters');
  t.equal(volume?.secret?.defaultMode, 0o440, 'root and the fsGroup the bridge runs with read it; no one else');
  t.end();
});

t.test("cluster-tokens: CLUSTER_TOKEN_DIR is a projected volume of the bridge's own tokens, one per audience; no new grant", (t) => {
  const objs = render('test/manifests/fleet-identity');
  const base = render('manifests');
  t.same(find(objs, 'ClusterRole'), find(base, 'ClusterRole'), 'no TokenRequest grant: the kubelet projects the tokens');
  const c = bridgeContainer(objs);
  const dir = c.env.find((e) => e.name === 'CLUSTER_TOKEN_DIR')?.value;
  const mount = c.volumeMounts.find((m) => m.mountPath === dir) as { name: string; readOnly?: boolean; subPath?: string } | undefined;
  t.equal(mount?.readOnly, true);
  t.equal(mount?.subPath, undefined, 'without subPath, so the kubelet rotates the tokens in place');
  const volume = bridgeDeployment(objs).spec.template.spec.volumes.find((v) => v.name === mount?.name) as
    { projected?: { sources: Array<{ serviceAccountToken?: { audience: string; path: string } }> } } | undefined;
  t.same(
    volume?.projected?.sources.map((s) => `${s.serviceAccountToken?.path} ${s.serviceAccountToken?.audience}`),
    ['prod-eu https://prod-eu.example.internal:6443', 'prod-us https://prod-us.example.internal:6443'],
    "the user's list replaced the placeholder",
  );
  const env: Record<string, string> = {};
  for (const e of c.env) env[e.name] = e.value ?? `secret-${e.valueFrom?.secretKeyRef?.key ?? ''}-of-at-least-32-bytes`;
  const config = loadConfig({ ...env, CLUSTER_NAME: 'hub' }, () => Buffer.from('a-mounted-key-of-at-least-32-bytes-long'));
  t.equal(config.clusterTokenDir, dir, 'read by the bridge as its token directory');
  t.end();
});

t.test('kubeconfig-configmaps: get on named ConfigMaps of one Flux namespace; shipped with a placeholder, never []', (t) => {
  const objs = render('manifests/optional/kubeconfig-configmaps');
  t.same(objs.map((o) => o.kind).sort(), ['Role', 'RoleBinding'], 'namespaced: no ClusterRole');
  const role = find(objs, 'Role') as Role;
  t.same(role.rules, [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['replace-with-the-configmap-names'], verbs: ['get'] }]);
  t.match(find(objs, 'RoleBinding'), {
    roleRef: { kind: 'Role', name: role.metadata.name },
    subjects: [{ kind: 'ServiceAccount', name: 'github-deployment-bridge', namespace: 'flux-system' }],
  });
  t.end();
});

/** The fenced YAML block of docs/fleet.md whose first line is `first`, with `../manifests` as the path to manifests/. */
function docBlock(t: Test, first: string): Obj[] {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'fleet.md'), 'utf8');
  const block = [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '').find((b) => b.startsWith(first));
  if (block === undefined) throw new Error(`docs/fleet.md has no yaml block starting ${first}`);
  const dir = mkdtempSync(join(tmpdir(), 'gdb-fleet-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'kustomization.yaml'), block.replaceAll('../manifests', relative(dir, join(REPO_ROOT, 'manifests'))));
  return render(relative(REPO_ROOT, dir));
}

t.test("docs/fleet.md's hub overlay: rendered, the kubeconfig directory mounted, and the bridge starts with it", (t) => {
  const objs = docBlock(t, '# my-bridge/kustomization.yaml, in the hub');
  const env: Record<string, string> = {};
  for (const e of bridgeContainer(objs).env) env[e.name] = e.value ?? `secret-${e.valueFrom?.secretKeyRef?.key ?? ''}-of-at-least-32-bytes`;
  t.equal(env.CLUSTER_KUBECONFIG_DIR, '/etc/github-deployment-bridge/clusters');
  t.equal(env.CLUSTER_NAME, 'hub');
  let problems: string[] = [];
  try {
    const config = loadConfig(env, () => Buffer.from('a-mounted-key-of-at-least-32-bytes-long'));
    t.equal(config.clusterKubeconfigDir, '/etc/github-deployment-bridge/clusters', 'read by the bridge as its kubeconfig directory');
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    problems = err.problems;
  }
  t.same(problems, []);
  t.end();
});

t.test("docs/fleet.md's Flux-Secret example: the Role it renders lists exactly its two Secrets", (t) => {
  const role = find(docBlock(t, '# fleet-rbac/kustomization.yaml'), 'Role') as Role;
  t.equal(role.metadata.namespace, 'fleet');
  t.same(role.rules, [
    { apiGroups: [''], resources: ['secrets'], resourceNames: ['prod-eu-kubeconfig', 'prod-us-kubeconfig'], verbs: ['get'] },
  ]);
  t.end();
});

t.test("docs/fleet.md's generic workload identity overlay: one token source for the spoke's audience, read as CLUSTER_TOKEN_DIR", (t) => {
  const objs = docBlock(t, '# my-bridge/kustomization.yaml, generic workload identity in the hub');
  const c = bridgeContainer(objs);
  const env: Record<string, string> = {};
  for (const e of c.env) env[e.name] = e.value ?? `secret-${e.valueFrom?.secretKeyRef?.key ?? ''}-of-at-least-32-bytes`;
  const config = loadConfig(env, () => Buffer.from('a-mounted-key-of-at-least-32-bytes-long'));
  t.equal(config.clusterTokenDir, '/var/run/secrets/github-deployment-bridge/cluster-tokens');
  const volume = bridgeDeployment(objs).spec.template.spec.volumes.find((v) => v.name === 'cluster-tokens') as
    { projected?: { sources: Array<{ serviceAccountToken?: { audience: string } }> } } | undefined;
  t.same(
    volume?.projected?.sources.map((s) => s.serviceAccountToken?.audience),
    ['https://prod-eu.example.internal:6443'],
  );
  t.end();
});
