/**
 * Issue 32: a forge behind a certificate of an unknown (corporate) CA looked healthy: `/readyz` 200 with nothing under
 * `degraded`, the status page "ready". Now the credential check's TLS failure is shown as degraded, with its cause
 * and what to do (NODE_EXTRA_CA_CERTS).
 */
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import t from 'tap';
import { CredentialMonitor } from '../../src/forges/credential-monitor.js';
import { ForgeHealth } from '../../src/forges/forge-health.js';
import { degradedDependencies } from '../../src/health/degraded.js';
import { selfSignedCertificate } from '../harness/x509.js';

t.test('a credential check failing on an untrusted certificate shows as degraded, naming TLS and NODE_EXTRA_CA_CERTS', async (t) => {
  const cert = selfSignedCertificate('gitlab.corp.example');
  const server = https.createServer({ key: cert.privateKey.export({ type: 'pkcs8', format: 'pem' }), cert: cert.pem }, (_req, res) =>
    res.end('{}'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close());
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4/user`;
  const health = new ForgeHealth({ auth: 'token', forge: 'GitLab', now: Date.now });
  const monitor = new CredentialMonitor({
    check: async () => {
      await fetch(url);
      return undefined;
    },
    health,
    unauthorized: () => undefined,
    log: pino({ level: 'silent' }),
    now: Date.now,
  });
  t.teardown(() => monitor.stop());
  await monitor.start();
  t.equal(health.readinessProblem(), undefined, 'not unready: the queue keeps the work');
  const degraded = degradedDependencies({ kube: null, forges: [health.outage() ?? ''].filter(Boolean), skips: [] });
  t.equal(degraded.length, 1, 'degraded');
  t.match(
    degraded[0],
    /GitLab failing since .+: could not check the GitLab credentials: TLS certificate not trusted \((DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE)/,
  );
  t.match(degraded[0], /NODE_EXTRA_CA_CERTS/);
});
