import t, { type Test } from 'tap';
import { find, render, type Obj, type Service } from './render.js';

interface Alert extends Obj {
  spec: { providerRef: { name: string }; eventSeverity?: string; eventSources: Array<{ kind: string; name: string; namespace?: string }> };
}
interface Provider extends Obj {
  spec: { type: string; address: string; secretRef: { name: string } };
}
interface FluxEvent {
  kind: string;
  namespace: string;
  name: string;
  severity: 'info' | 'error';
}

/**
 * Whether notification-controller sends `event` through `alert`, as its event handler decides: an event
 * source without `namespace` means the Alert's own, `name: '*'` matches any name (within that namespace
 * only), severity `info` takes every event. With `--no-cross-namespace-refs` (multi-tenant lockdown) an
 * Alert only takes events of its own namespace.
 */
function alertTakes(alert: Alert, event: FluxEvent, opts: { noCrossNamespaceRefs?: boolean } = {}): boolean {
  const alertNamespace = alert.metadata.namespace ?? 'default';
  if (opts.noCrossNamespaceRefs && event.namespace !== alertNamespace) return false;
  const severity = alert.spec.eventSeverity ?? 'info';
  if (severity !== 'info' && severity !== event.severity) return false;
  return alert.spec.eventSources.some(
    (s) => (s.namespace ?? alertNamespace) === event.namespace && s.kind === event.kind && (s.name === '*' || s.name === event.name),
  );
}

const event = (kind: string, namespace: string, name: string): FluxEvent => ({ kind, namespace, name, severity: 'info' });
const service = find(render('manifests'), 'Service') as Service;

/** Checks a rendered Provider/Alert pair: it posts to the bridge's Service with the HMAC Secret of its namespace. */
function checkPair(t: Test, objs: Obj[], namespace: string): Alert {
  t.same(
    objs.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`).sort(),
    [`Alert/${namespace}/github-deployment-bridge`, `Provider/${namespace}/github-deployment-bridge`],
    'a Provider and an Alert, nothing else (the Secret is made by hand)',
  );
  const provider = find(objs, 'Provider') as Provider;
  t.match(provider, {
    apiVersion: 'notification.toolkit.fluxcd.io/v1beta3',
    spec: {
      type: 'generic-hmac',
      address: `http://${service.metadata.name}.${service.metadata.namespace ?? ''}.svc.cluster.local:${service.spec.ports[0]!.port}/webhook`,
      secretRef: { name: 'github-deployment-bridge-hmac' },
    },
  });
  const alert = find(objs, 'Alert') as Alert;
  t.equal(alert.apiVersion, 'notification.toolkit.fluxcd.io/v1beta3', 'the API version COMPATIBILITY.md names');
  t.equal(alert.spec.providerRef.name, provider.metadata.name, 'providerRef is local: the Provider sits in the same namespace');
  return alert;
}

t.test("manifests/flux: flux-system's own Kustomizations and HelmReleases, and only them", (t) => {
  const alert = checkPair(t, render('manifests/flux'), 'flux-system');
  t.ok(alertTakes(alert, event('Kustomization', 'flux-system', 'apps')));
  t.ok(alertTakes(alert, event('HelmRelease', 'flux-system', 'ingress-nginx')));
  t.notOk(alertTakes(alert, event('Kustomization', 'apps', 'web')), "name: '*' does not reach other namespaces");
  t.notOk(alertTakes(alert, event('GitRepository', 'flux-system', 'flux-system')), 'sources are not deployments');
  t.end();
});

t.test('the namespace component, rendered into an application namespace: that namespace events, even under lockdown', (t) => {
  const alert = checkPair(t, render('test/manifests/tenant'), 'apps');
  for (const noCrossNamespaceRefs of [false, true]) {
    const opts = { noCrossNamespaceRefs };
    t.ok(alertTakes(alert, event('Kustomization', 'apps', 'web'), opts), `Kustomization (lockdown ${noCrossNamespaceRefs})`);
    t.ok(alertTakes(alert, { ...event('HelmRelease', 'apps', 'api'), severity: 'error' }, opts), 'errors too');
    t.notOk(alertTakes(alert, event('Kustomization', 'other', 'web'), opts), 'not another tenant');
    t.notOk(alertTakes(alert, event('Kustomization', 'flux-system', 'apps'), opts), 'not flux-system (manifests/flux has it)');
  }
  t.end();
});

t.test('flux-system and each application namespace with its pair: every Flux event reaches the bridge exactly once', (t) => {
  const alerts = [...render('manifests/flux'), ...render('test/manifests/tenant')].filter((o): o is Alert => o.kind === 'Alert');
  for (const e of [
    event('Kustomization', 'flux-system', 'infra'),
    event('Kustomization', 'apps', 'web'),
    event('HelmRelease', 'apps', 'db'),
  ])
    t.equal(alerts.filter((a) => alertTakes(a, e)).length, 1, `${e.kind} ${e.namespace}/${e.name}`);
  t.equal(
    alerts.filter((a) => alertTakes(a, event('Kustomization', 'team-b', 'web'))).length,
    0,
    'a namespace without its pair: resync only',
  );
  t.end();
});
