/**
 * A spoke's API server over real TLS, with a CA made in the test: a kubeconfig whose certificate-authority-data
 * is that CA is read (and no request carries the bridge's own token); one with another CA is a `tls` failure of
 * that cluster in /state and the metric, with nothing read in the hub and nothing reported; and one saying
 * insecure-skip-tls-verify is read, with one warning in the log however often its credentials are read again.
 */
import t from 'tap';
import { fluxEvent } from '../harness/bridge-process.js';
import { kubeconfigSecret } from '../harness/core-objects.js';
import { kubeconfigText, startFakeKube } from '../harness/fake-kube.js';
import { putApp, putRemoteKustomization } from '../harness/spokes.js';
import { KUBE_TOKEN, startWorld } from '../harness/world.js';
import { selfSignedCertificate, serverCertificate } from '../harness/x509.js';
import { sha } from './scenario.js';

const A = sha('fleet-tls-spoke');
const DECOY = sha('fleet-tls-hub-decoy');
const TIMEOUT_MS = 60_000;
const SPOKE_TOKEN = 'tls-spoke-token';
const INSECURE_WARNING = /insecure-skip-tls-verify/;

t.test('a spoke over HTTPS: its CA verifies it, another CA is a tls failure, insecure-skip-tls-verify warns once', async (t) => {
  const ca = selfSignedCertificate('spoke-ca');
  const otherCa = selfSignedCertificate('spoke-ca'); // the same name, another key: only the signature tells them apart
  const cert = serverCertificate(ca, '127.0.0.1');
  const spoke = await startFakeKube({
    token: SPOKE_TOKEN,
    tls: { cert: cert.pem, key: cert.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
  });
  const world = await startWorld();
  t.teardown(async () => {
    await world.close();
    await spoke.close();
  });
  t.match(spoke.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const secret = (cluster: string, text: string) =>
    world.kube.put(kubeconfigSecret({ namespace: 'flux-system', name: `${cluster}-kubeconfig`, text }));
  const insecureText = (comment: string) => `${kubeconfigText(spoke.url, SPOKE_TOKEN)}# ${comment}\n`;
  secret('verified', kubeconfigText(spoke.url, SPOKE_TOKEN, { caPem: ca.pem }));
  secret('wrong-ca', kubeconfigText(spoke.url, SPOKE_TOKEN, { caPem: otherCa.pem }));
  secret('insecure', insecureText('first'));
  // One workload per cluster, each with a same-named decoy in the hub (another commit): reading it would be the bug.
  for (const [cluster, app] of [
    ['verified', 'web'],
    ['wrong-ca', 'pay'],
    ['insecure', 'ui'],
  ] as const) {
    putApp(spoke, app, `acme/${app}`, A);
    putApp(world.kube, app, `acme/${app}`, DECOY);
    putRemoteKustomization(world.kube, app, app, { secretName: `${cluster}-kubeconfig` });
  }

  const bridge = await world.bridge();
  const live = (app: string) => world.github.deployments('acme', app)[0]?.statuses.some((s) => s.state === 'success') ?? false;
  const state = await bridge.waitFor(
    // The wrong CA's Kustomization stays queued for its retry: the queue never idles.
    'two reported, one refused by TLS',
    async () => {
      const s = await bridge.state();
      return live('web') && live('ui') && s.clusters?.find((c) => c.name === 'wrong-ca')?.answers === false && s;
    },
    TIMEOUT_MS,
  );

  t.match(
    world.github.deployments('acme', 'web'),
    [{ sha: A, payload: { cluster: 'verified' } }],
    'verified with certificate-authority-data: reported from the spoke',
  );
  t.match(world.github.deployments('acme', 'ui'), [{ sha: A, payload: { cluster: 'insecure' } }], 'insecure-skip-tls-verify: reported');
  t.same(world.github.deployments('acme', 'pay'), [], 'the wrong CA: nothing reported');
  const wrong = state.clusters?.find((c) => c.name === 'wrong-ca');
  t.match(
    wrong,
    { local: false, answers: false, lastAnswerAt: null, reason: /certificate|self[- ]signed|TLS|SSL/i },
    'the TLS reason in /state',
  );
  t.match(
    state.skipped.find((k) => k.fluxObject === 'Kustomization/flux-system/pay'),
    { code: 'cluster_unavailable', reason: /cluster wrong-ca: .*(certificate|self[- ]signed|TLS|SSL)/i },
  );
  t.match(await bridge.metrics(), /gdb_cluster_read_failures_total\{cluster="wrong-ca",reason="tls"\} [1-9]/);
  t.match(await bridge.metrics(), /gdb_cluster_up\{cluster="wrong-ca"\} 0/);
  t.notOk(
    spoke.requests.some((r) => r.path.endsWith('/pay')),
    'no request of the wrong-CA cluster got through the handshake',
  );
  t.same(
    world.kube.requests.filter((r) => /^\/apis\/apps\/|\/pods/.test(r.path)),
    [],
    "nothing read in the hub in any spoke's place",
  );
  t.ok(spoke.requests.length > 0, 'the spoke was read over TLS');
  t.same(
    [...new Set(spoke.requests.map((r) => r.authorization))],
    [`Bearer ${SPOKE_TOKEN}`],
    "every request carried the kubeconfig's token",
  );
  t.notOk(
    spoke.requests.some((r) => r.authorization?.includes(KUBE_TOKEN)),
    "the bridge's own token never reached the spoke",
  );

  // The insecure kubeconfig changes (a rotation rewrites the Secret): read again, and still one warning.
  secret('insecure', insecureText('rotated'));
  putApp(spoke, 'ui', 'acme/ui', sha('fleet-tls-spoke-b'));
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'ui', { reason: 'ReconciliationSucceeded' }));
  await bridge.waitFor(
    'the second commit reported after the new credentials',
    () =>
      world.github
        .deployments('acme', 'ui')
        .some((d) => d.sha === sha('fleet-tls-spoke-b') && d.statuses.some((s) => s.state === 'success')),
    TIMEOUT_MS,
  );
  t.ok(
    bridge.logs.some((l) => /credentials changed/.test(String(l.msg)) && l.cluster === 'insecure'),
    'the changed kubeconfig was read again',
  );
  const warnings = bridge.logs.filter((l) => INSECURE_WARNING.test(String(l.msg)));
  t.equal(warnings.length, 1, 'insecure-skip-tls-verify warned once');
  t.match(warnings[0], { level: 40, cluster: 'insecure', server: spoke.url });
  t.notOk(
    bridge.logs.some((l) => INSECURE_WARNING.test(String(l.msg)) && l.cluster !== 'insecure'),
    'no warning for the verified clusters',
  );
  t.equal(world.kube.writes().length + spoke.writes().length, 0, 'the bridge never writes to a cluster');
});
