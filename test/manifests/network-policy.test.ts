import t from 'tap';
import { ingressVerdict, namespaceLabels, selects, type NetworkPolicy, type Pod } from './network-policy.js';
import { bridgeContainer, bridgeDeployment, readYaml, render } from './render.js';

/** Flux's own policies in flux-system, as `flux install` ships them (origin in the file). */
const FLUX_POLICIES = readYaml('test/manifests/flux-install/network-policies.yaml') as unknown as NetworkPolicy[];
const labelsOf = namespaceLabels();

const base = render('manifests');
const ours = base.filter((o) => o.kind === 'NetworkPolicy') as unknown as NetworkPolicy[];
const bridge: Pod = {
  namespace: 'flux-system',
  labels: bridgeDeployment(base).spec.template.metadata.labels,
  ports: bridgeContainer(base).ports,
};
const PORT = bridgeContainer(base).ports[0]!.containerPort;

const pod = (namespace: string, labels: Record<string, string>): Pod => ({ namespace, labels });
const notificationController = pod('flux-system', { app: 'notification-controller' });
const kustomizeController = pod('flux-system', { app: 'kustomize-controller' });
const prometheus = pod('monitoring', { 'app.kubernetes.io/name': 'prometheus' });
const tenantPod = pod('apps', { app: 'web' });

t.test("with Flux's policies in flux-system, the bridge's port admits only Flux, the same namespace and Prometheus", (t) => {
  const all = [...FLUX_POLICIES, ...ours];
  const verdict = (from: Pod, port = PORT) => ingressVerdict(all, { from, to: bridge, port }, labelsOf);
  t.same(verdict(notificationController), { admitted: true, isolated: true, by: ['allow-egress', 'github-deployment-bridge'] });
  t.same(verdict(kustomizeController).by, ['allow-egress'], "Flux's allow-egress admits every flux-system pod on any port");
  t.same(verdict(prometheus).by, ['github-deployment-bridge'], 'Prometheus from its namespace');

  t.same(verdict(tenantPod), { admitted: false, isolated: true, by: [] }, 'a pod of another namespace: /webhook and /state closed');
  t.notOk(verdict(pod('apps', { app: 'notification-controller' })).admitted, 'a look-alike label in another namespace');
  t.notOk(verdict(pod('apps', { 'app.kubernetes.io/name': 'prometheus' })).admitted, 'a Prometheus label outside its namespace');
  t.same(
    verdict(tenantPod, 8080).by,
    ['allow-scraping'],
    'port 8080 would be open to every namespace, whatever our policy says: why the bridge is not on 8080',
  );
  t.end();
});

t.test('the same bridge on port 8080 (the manifests before) is reachable from every namespace', (t) => {
  const on8080: Pod = { ...bridge, ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }] };
  const verdict = ingressVerdict([...FLUX_POLICIES, ...ours], { from: tenantPod, to: on8080, port: 8080 }, labelsOf);
  t.same(verdict, { admitted: true, isolated: true, by: ['allow-scraping'] });
  t.end();
});

t.test("without Flux's policies (flux install --network-policy=false) ours alone holds", (t) => {
  const verdict = (from: Pod) => ingressVerdict(ours, { from, to: bridge, port: PORT }, labelsOf);
  t.ok(verdict(notificationController).admitted);
  t.ok(verdict(prometheus).admitted);
  t.notOk(verdict(kustomizeController).admitted, 'other flux-system pods too are kept out');
  t.notOk(verdict(tenantPod).admitted);
  t.end();
});

t.test('evaluator: selectors, peers, ports as the API defines them', (t) => {
  t.ok(selects({}, { a: '1' }), '{} selects everything');
  t.ok(selects({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['web', 'api'] }] }, { tier: 'api' }));
  t.notOk(selects({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] }, { tier: 'web' }));
  t.ok(selects({ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['web'] }] }, {}), 'NotIn holds for a missing key');
  t.ok(selects({ matchExpressions: [{ key: 'x', operator: 'DoesNotExist' }] }, { y: '1' }));
  t.notOk(selects({ matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'Exists' }] }, { a: '1' }), 'both must hold');

  const to: Pod = { namespace: 'n', labels: { app: 'x' }, ports: [{ name: 'web', containerPort: 9000 }] };
  const policy = (ingress: NetworkPolicy['spec']['ingress']): NetworkPolicy => ({
    kind: 'NetworkPolicy',
    metadata: { name: 'p', namespace: 'n' },
    spec: { podSelector: { matchLabels: { app: 'x' } }, ingress },
  });
  const admits = (p: NetworkPolicy, from: Pod, port: number, protocol?: string) =>
    ingressVerdict([p], { from, to, port, ...(protocol ? { protocol } : {}) }, namespaceLabels({ m: { team: 'a' } })).admitted;
  const here = pod('n', {});
  const elsewhere = pod('m', { role: 'db' });

  t.ok(ingressVerdict([], { from: elsewhere, to, port: 1 }, labelsOf).admitted, 'no policy selects the pod: not isolated');
  t.notOk(admits(policy(undefined), here, 9000), 'selected with no rules: nothing admitted');
  t.notOk(admits(policy([]), here, 9000), 'an empty rule list admits nothing');
  t.ok(admits(policy([{}]), elsewhere, 1), 'a rule with neither from nor ports admits everything');
  t.ok(admits(policy([{ from: [{ podSelector: {} }] }]), here, 1), 'podSelector alone: the policy namespace');
  t.notOk(admits(policy([{ from: [{ podSelector: {} }] }]), elsewhere, 1));
  t.ok(admits(policy([{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } } }] }]), elsewhere, 1));
  t.ok(
    admits(policy([{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'm' } } }] }]), elsewhere, 1),
    'every namespace carries its name label',
  );
  t.notOk(
    admits(
      policy([{ from: [{ namespaceSelector: { matchLabels: { team: 'a' } }, podSelector: { matchLabels: { role: 'web' } } }] }]),
      elsewhere,
      1,
    ),
    'namespace and pod selector in one peer: both must hold',
  );
  t.ok(
    admits(policy([{ from: [{ namespaceSelector: { matchLabels: { team: 'b' } } }, { podSelector: {} }] }]), here, 1),
    'two peers: either suffices',
  );
  t.notOk(admits(policy([{ from: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }]), elsewhere, 1), 'ipBlock is not modelled: admits nothing');
  t.ok(admits(policy([{ ports: [{ port: 'web' }] }]), elsewhere, 9000), 'a named port is the container port of that name');
  t.notOk(admits(policy([{ ports: [{ port: 'web' }] }]), elsewhere, 9001));
  t.notOk(admits(policy([{ ports: [{ port: 9000 }] }]), elsewhere, 9000, 'UDP'), 'TCP unless said');
  t.ok(admits(policy([{ ports: [{ port: 8000, endPort: 9000 }] }]), elsewhere, 8500), 'a port range');
  t.notOk(admits(policy([{ ports: [{ port: 8000, endPort: 9000 }] }]), elsewhere, 9001));
  const egressOnly: NetworkPolicy = { ...policy(undefined), spec: { podSelector: {}, policyTypes: ['Egress'], egress: [] } };
  t.ok(ingressVerdict([egressOnly], { from: elsewhere, to, port: 1 }, labelsOf).admitted, 'an Egress-only policy does not isolate ingress');
  t.end();
});

t.test('the optional egress example: selects the bridge, DNS, the API server, HTTPS to public addresses only', (t) => {
  interface EgressRule {
    to: Array<{ ipBlock?: { cidr: string; except?: string[] }; namespaceSelector?: unknown; podSelector?: unknown }>;
    ports: Array<{ port: number; protocol: string }>;
  }
  const [egress] = render('manifests/optional/egress') as unknown as Array<NetworkPolicy & { spec: { egress: EgressRule[] } }>;
  t.ok(egress);
  if (!egress) return t.end();
  t.equal(egress.metadata.namespace, 'flux-system');
  t.ok(selects(egress.spec.podSelector, bridge.labels), 'it selects the bridge pod');
  t.same(egress.spec.policyTypes, ['Egress'], 'egress only: ingress stays as the base policy has it');
  const [dns, api, https] = egress.spec.egress;
  t.same(dns?.ports, [
    { port: 53, protocol: 'UDP' },
    { port: 53, protocol: 'TCP' },
  ]);
  t.same(
    api?.ports.map((p) => p.port),
    [443, 6443],
  );
  t.same(
    https?.ports.map((p) => p.port),
    [443],
    'HTTPS only',
  );
  const v4 = https?.to.find((p) => p.ipBlock?.cidr === '0.0.0.0/0')?.ipBlock?.except ?? [];
  for (const cidr of ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16']) t.ok(v4.includes(cidr), `not ${cidr}`);
  const allowEgress = FLUX_POLICIES.find((p) => p.metadata.name === 'allow-egress');
  t.ok(
    allowEgress && selects(allowEgress.spec.podSelector, bridge.labels) && allowEgress.spec.policyTypes?.includes('Egress'),
    "Flux's allow-egress also selects the bridge in flux-system and admits all egress: the example restricts nothing there (its header says so)",
  );
  t.end();
});
