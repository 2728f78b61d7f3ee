import t from 'tap';
import { KubeError } from '../../src/common/errors.js';
import type { KubeReader } from '../../src/kube/kube-types.js';
import { ClusterUnavailable, SPOKE_BACKOFF_BASE_MS, failureOf, gatedReader } from '../../src/kube/spoke-gate.js';

t.test('failure classes: no answer, TLS, timeout, 401 and 5xx close the gate; 404 and 403 are answers', (t) => {
  const table: Array<[unknown, string | undefined]> = [
    [new KubeError('Kubernetes API: GET x failed: connect ECONNREFUSED 127.0.0.1:1'), 'unreachable'],
    [new KubeError('Kubernetes API: GET x timed out after 10000 ms'), 'timeout'],
    [new KubeError('Kubernetes API: GET x failed: self-signed certificate in certificate chain'), 'tls'],
    [new KubeError('Kubernetes API: GET x failed: 401 Unauthorized', 401), 'unauthorized'],
    [new KubeError('Kubernetes API: GET x failed: 503 busy', 503), 'server_error'],
    [new KubeError('Kubernetes API: GET x failed: 404 not found', 404), undefined],
    [new KubeError('Kubernetes API: GET x failed: 403 forbidden', 403), undefined],
    [new Error('not a kube error'), undefined],
  ];
  for (const [err, want] of table) t.equal(failureOf(err), want, (err as Error).message);
  t.end();
});

t.test('a down spoke: one probe at a time, the others fail at once; none before the backoff; open again once it answers', async (t) => {
  let now = 0;
  let calls = 0;
  let down = true;
  const events: string[] = [];
  const unused = () => Promise.reject(new Error('not read here'));
  const inner: KubeReader = {
    getFluxObject: unused,
    listFluxObjects: unused,
    listWorkloads: unused,
    getRoutingObject: unused,
    listRoutingObjects: unused,
    getNamespace: unused,
    getSecret: unused,
    getServiceAccountPullSecrets: unused,
    listPods: unused,
    getWorkload: async () => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      if (down) throw new KubeError('Kubernetes API: GET x failed: connect ECONNREFUSED');
      return null;
    },
  };
  const reader = gatedReader('prod-eu', inner, { answered: () => events.push('answered'), failed: (f) => events.push(f) }, () => now);
  const many = await Promise.allSettled([1, 2, 3, 4].map(() => reader.getWorkload('Deployment', 'apps', 'web')));
  t.equal(calls, 1, 'four concurrent reads, one request');
  t.ok(many.every((r) => r.status === 'rejected' && r.reason instanceof ClusterUnavailable && r.reason.cluster === 'prod-eu'));
  await t.rejects(reader.getWorkload('Deployment', 'apps', 'web'), /cluster prod-eu: /);
  t.equal(calls, 1, 'no request before the backoff');
  now += SPOKE_BACKOFF_BASE_MS;
  down = false;
  t.equal(await reader.getWorkload('Deployment', 'apps', 'web'), null);
  t.equal(calls, 2, 'the probe after the backoff');
  await Promise.all([1, 2, 3].map(() => reader.getWorkload('Deployment', 'apps', 'web')));
  t.equal(calls, 5, 'open: every read goes');
  t.same(events, ['unreachable', 'answered', 'answered', 'answered', 'answered']);
});
