/**
 * The fleet's manifests (docs/fleet.md): the spoke's read-only identity, the Role on Flux's named kubeconfig
 * Secrets, the hub's mount of the bridge's own kubeconfigs, and scripts/spoke-kubeconfig.sh, which turns the spoke's
 * identity into a kubeconfig file (run against a stand-in kubectl that answers what a spoke's would).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
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

/** Runs scripts/spoke-kubeconfig.sh with a stand-in kubectl answering from `answers`; returns its output and calls. */
function runScript(args: string[], answers: { server?: string; token?: string; ca?: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'spoke-kubeconfig-'));
  try {
    const fake = join(dir, 'kubectl');
    writeFileSync(
      fake,
      [
        '#!/bin/sh',
        'echo "$*" >> "$FAKE_LOG"',
        'case "$*" in',
        '  *"config view"*) printf %s "$FAKE_SERVER" ;;',
        '  *"{.data.token}"*) printf %s "$FAKE_TOKEN" ;;',
        '  *"{.data.ca\\.crt}"*) printf %s "$FAKE_CA" ;;',
        'esac',
        '',
      ].join('\n'),
    );
    chmodSync(fake, 0o755);
    writeFileSync(join(dir, 'log'), '');
    const r = spawnSync('sh', [join(REPO_ROOT, 'scripts/spoke-kubeconfig.sh'), ...args], {
      encoding: 'utf8',
      env: {
        PATH: `${dir}:${process.env.PATH ?? ''}`,
        FAKE_LOG: join(dir, 'log'),
        FAKE_SERVER: answers.server ?? '',
        FAKE_TOKEN: answers.token === undefined ? '' : Buffer.from(answers.token).toString('base64'),
        FAKE_CA: answers.ca === undefined ? '' : Buffer.from(answers.ca).toString('base64'),
      },
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, calls: readFileSync(join(dir, 'log'), 'utf8').trim().split('\n') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

t.test("spoke-kubeconfig.sh: a self-contained kubeconfig from the reader's token Secret", (t) => {
  const r = runScript(['prod-eu', 'spoke-admin'], { server: 'https://10.0.0.1:6443', token: 'eyJhbGciOi.x.y', ca: PEM });
  t.equal(r.status, 0, r.stderr);
  const kc = parse(r.stdout) as Record<string, unknown>;
  t.same(kc, {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'prod-eu', cluster: { server: 'https://10.0.0.1:6443', 'certificate-authority-data': Buffer.from(PEM).toString('base64') } },
    ],
    users: [{ name: 'github-deployment-bridge-reader', user: { token: 'eyJhbGciOi.x.y' } }],
    contexts: [{ name: 'prod-eu', context: { cluster: 'prod-eu', user: 'github-deployment-bridge-reader' } }],
    'current-context': 'prod-eu',
  });
  t.ok(
    r.calls.every((c) => c.startsWith('--context spoke-admin ')),
    "every read goes to the spoke's context",
  );
  t.ok(r.calls.some((c) => c.includes('-n github-deployment-bridge get secret github-deployment-bridge-reader-token')));
  t.end();
});

t.test('spoke-kubeconfig.sh: the server as the hub reaches it, when given', (t) => {
  const r = runScript(['prod-us', 'ctx', 'https://prod-us.internal:443'], { server: 'https://127.0.0.1:6443', token: 'a.b.c', ca: PEM });
  t.equal(r.status, 0, r.stderr);
  t.match(parse(r.stdout), { clusters: [{ cluster: { server: 'https://prod-us.internal:443' } }] });
  t.notOk(
    r.calls.some((c) => c.includes('config view')),
    "the context's server is not asked for",
  );
  t.end();
});

t.test('spoke-kubeconfig.sh: refuses what would not make a valid file, with a clear line and no output', (t) => {
  const ok = { server: 'https://10.0.0.1:6443', token: 'a.b.c', ca: PEM };
  const cases: Array<[string, string[], typeof ok | Partial<typeof ok>, RegExp, number]> = [
    ['no arguments', [], ok, /usage: /, 2],
    ['a path as the cluster', ['../etc'], ok, /cannot name a cluster's kubeconfig file/, 2],
    ['a hidden name', ['.x'], ok, /cannot name/, 2],
    ['a space in the cluster', ['a b'], ok, /cannot name/, 2],
    ['plain http', ['c'], { ...ok, server: 'http://10.0.0.1:6443' }, /must be an https:\/\/ URL/, 1],
    ['a quote in the server', ['c', 'x', "https://a'b"], ok, /must be an https:\/\/ URL/, 1],
    ['a YAML comment in the server', ['c', 'x', 'https://a#b'], ok, /must be an https:\/\/ URL/, 1],
    ['no server', ['c'], { ...ok, server: '' }, /must be an https:\/\/ URL/, 1],
    ['no token yet', ['c'], { server: ok.server, ca: PEM }, /has no token or ca\.crt yet/, 1],
    ['no CA', ['c'], { server: ok.server, token: 'a.b.c' }, /has no token or ca\.crt yet/, 1],
  ];
  for (const [what, args, answers, message, status] of cases) {
    const r = runScript(args, answers);
    t.equal(r.status, status, `${what}: exit ${status}`);
    t.match(r.stderr, message, what);
    t.equal(r.stdout, '', `${what}: no partial kubeconfig`);
  }
  t.end();
});
