/**
 * Builders for the objects that route traffic to a workload, shaped like what kube-apiserver serves:
 * a v1 Service selecting `app.kubernetes.io/name: <app>` (the label `deployment()` gives its pods),
 * a networking.k8s.io/v1 Ingress and a gateway.networking.k8s.io/v1 HTTPRoute to that Service.
 */
import type { KubeObject } from './fake-kube/store.js';
import { uidFor } from './kube-meta.js';

const metaOf = (kind: string, namespace: string, name: string) => ({ name, namespace, uid: uidFor(kind, namespace, name) });

/** A ClusterIP Service `<namespace>/<name>` selecting the pods of app `selects` (default: its own name). */
export function service(o: { namespace: string; name: string; selects?: string }): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: metaOf('Service', o.namespace, o.name),
    spec: {
      type: 'ClusterIP',
      selector: { 'app.kubernetes.io/name': o.selects ?? o.name },
      ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }],
    },
  };
}

/** An Ingress with one rule: `host` + `path` to Service `service` (named port), TLS for the host when `tls`. */
export function ingress(o: { namespace: string; name: string; host: string; path: string; service: string; tls?: boolean }): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: metaOf('Ingress', o.namespace, o.name),
    spec: {
      ingressClassName: 'nginx',
      ...(o.tls ? { tls: [{ hosts: [o.host], secretName: `${o.name}-tls` }] } : {}),
      rules: [
        {
          host: o.host,
          http: { paths: [{ path: o.path, pathType: 'Prefix', backend: { service: { name: o.service, port: { name: 'http' } } } }] },
        },
      ],
    },
    status: { loadBalancer: {} },
  };
}

/** An HTTPRoute attached to Gateway `gateways/public`: `host` + path prefix `path` to Service `service`. */
export function httpRoute(o: { namespace: string; name: string; host: string; path: string; service: string }): KubeObject {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: metaOf('HTTPRoute', o.namespace, o.name),
    spec: {
      parentRefs: [{ group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public', namespace: 'gateways' }],
      hostnames: [o.host],
      rules: [
        {
          matches: [{ path: { type: 'PathPrefix', value: o.path } }],
          backendRefs: [{ group: '', kind: 'Service', name: o.service, port: 80, weight: 1 }],
        },
      ],
    },
  };
}
