/**
 * A small evaluator of Kubernetes NetworkPolicy ingress (networking.k8s.io/v1) over rendered objects: may a
 * pod reach another pod's port? It follows the API's rules: a pod is isolated for ingress once any policy of
 * its namespace selects it with `Ingress` among its policy types, and then admits what the union of those
 * policies' rules admits. `ipBlock` peers are not modelled (which pod IPs they cover is up to the network
 * plugin): they admit nothing here, so the evaluator never admits more than a cluster would.
 */

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}

interface Peer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: unknown;
}

interface PolicyPort {
  port?: number | string;
  endPort?: number;
  protocol?: string;
}

export interface NetworkPolicy {
  kind: 'NetworkPolicy';
  metadata: { name: string; namespace?: string };
  spec: {
    podSelector: LabelSelector;
    policyTypes?: string[];
    ingress?: Array<{ from?: Peer[]; ports?: PolicyPort[] }>;
    egress?: unknown[];
  };
}

/** A pod as the policies see it: where it runs, its labels, and (for a destination) its named ports. */
export interface Pod {
  namespace: string;
  labels: Record<string, string>;
  ports?: Array<{ name?: string; containerPort: number; protocol?: string }>;
}

/** Whether a label selector selects these labels; `{}` selects everything. */
export function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  return (
    byLabel &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      const has = key in labels;
      if (operator === 'Exists') return has;
      if (operator === 'DoesNotExist') return !has;
      const member = has && values.includes(labels[key]!);
      return operator === 'In' ? member : !member;
    })
  );
}

/** A namespace's labels: the ones given, and `kubernetes.io/metadata.name`, which the API server sets on every namespace. */
export type NamespaceLabels = (namespace: string) => Record<string, string>;
export const namespaceLabels =
  (extra: Record<string, Record<string, string>> = {}): NamespaceLabels =>
  (ns) => ({ ...extra[ns], 'kubernetes.io/metadata.name': ns });

const policyTypes = (p: NetworkPolicy) => p.spec.policyTypes ?? (p.spec.egress ? ['Ingress', 'Egress'] : ['Ingress']);

function peerAdmits(peer: Peer, policyNamespace: string, from: Pod, labelsOf: NamespaceLabels): boolean {
  if (peer.ipBlock) return false;
  const inNamespace = peer.namespaceSelector
    ? selects(peer.namespaceSelector, labelsOf(from.namespace))
    : from.namespace === policyNamespace;
  return inNamespace && (!peer.podSelector || selects(peer.podSelector, from.labels));
}

function portAdmits(rule: PolicyPort, to: Pod, port: number, protocol: string): boolean {
  if ((rule.protocol ?? 'TCP') !== protocol) return false;
  if (rule.port === undefined) return true;
  if (typeof rule.port === 'string')
    return (to.ports ?? []).some((p) => p.name === rule.port && p.containerPort === port && (p.protocol ?? 'TCP') === protocol);
  return rule.endPort === undefined ? rule.port === port : port >= rule.port && port <= rule.endPort;
}

/**
 * May `from` open a connection to `port` of `to`? `by` names the policies that admit it; `isolated` is false
 * when no policy selects `to` for ingress (then everything is admitted).
 */
export function ingressVerdict(
  policies: readonly NetworkPolicy[],
  traffic: { from: Pod; to: Pod; port: number; protocol?: string },
  labelsOf: NamespaceLabels,
): { admitted: boolean; isolated: boolean; by: string[] } {
  const { from, to, port, protocol = 'TCP' } = traffic;
  const applying = policies.filter(
    (p) =>
      (p.metadata.namespace ?? 'default') === to.namespace && policyTypes(p).includes('Ingress') && selects(p.spec.podSelector, to.labels),
  );
  if (applying.length === 0) return { admitted: true, isolated: false, by: [] };
  const by = applying
    .filter((p) =>
      (p.spec.ingress ?? []).some(
        (rule) =>
          (!rule.from?.length || rule.from.some((peer) => peerAdmits(peer, to.namespace, from, labelsOf))) &&
          (!rule.ports?.length || rule.ports.some((r) => portAdmits(r, to, port, protocol))),
      ),
    )
    .map((p) => p.metadata.name);
  return { admitted: by.length > 0, isolated: true, by };
}
