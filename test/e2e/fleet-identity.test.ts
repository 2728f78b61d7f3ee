/**
 * Flux's `generic` workload identity (spec.kubeConfig.configMapRef, `provider: generic`) read with the bridge's own
 * projected ServiceAccount token (CLUSTER_TOKEN_DIR), never a TokenRequest: the spoke (HTTPS, the ConfigMap's
 * ca.crt) gets only the token minted for its audience, a rotated token file is used without a restart, and the
 * other providers, or a generic ConfigMap without a token for its audience, are skips naming the way out.
 */
import t from 'tap';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fluxEvent } from '../harness/bridge-process.js';
import { configMap } from '../harness/core-objects.js';
import { startFakeKube } from '../harness/fake-kube.js';
import { putApp, putRemoteKustomization } from '../harness/spokes.js';
import { KUBE_TOKEN, startWorld } from '../harness/world.js';
import { selfSignedCertificate, serverCertificate } from '../harness/x509.js';
import { sha } from './scenario.js';

const A = sha('fleet-identity-a');
const B = sha('fleet-identity-b');
const DECOY = sha('fleet-identity-decoy');
const TIMEOUT_MS = 60_000;
const SUBJECT = 'system:serviceaccount:flux-system:github-deployment-bridge';

/** A projected service-account token's shape (the spoke sim checks the bearer as a whole; its audience is read here). */
function jwt(aud: string, jti: string): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return `${part({ alg: 'RS256', kid: 'hub' })}.${part({ aud: [aud], sub: SUBJECT, iss: 'https://hub.example', exp, jti })}.c2ln`;
}
const audOf = (bearer: string | undefined) =>
  (JSON.parse(Buffer.from((bearer ?? '').replace(/^Bearer /, '').split('.')[1] ?? '', 'base64url').toString()) as { aud: string[] }).aud;

t.test("generic workload identity: the bridge's own projected token, for the spoke's audience only", async (t) => {
  const ca = selfSignedCertificate('spoke-ca');
  const cert = serverCertificate(ca, '127.0.0.1');
  const spoke = await startFakeKube({ tls: { cert: cert.pem, key: cert.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() } });
  const world = await startWorld();
  t.teardown(async () => {
    await world.close();
    await spoke.close();
  });
  const tokens = join(world.dir, 'tokens');
  mkdirSync(tokens);
  const mine = jwt(spoke.url, 'first');
  const elsewhere = jwt('https://elsewhere.example:6443', 'other');
  spoke.token = mine;
  writeFileSync(join(tokens, 'prod-eu'), `${mine}\n`);
  writeFileSync(join(tokens, 'elsewhere'), elsewhere);

  const cm = (name: string, data: Record<string, string>) => world.kube.put(configMap({ namespace: 'flux-system', name, data }));
  cm('prod-eu', { provider: 'generic', address: spoke.url, 'ca.crt': ca.pem });
  cm('eks-prod', { provider: 'aws', cluster: 'arn:aws:eks:eu-west-1:1:cluster/prod' });
  cm('no-token', { provider: 'generic', address: spoke.url, audiences: 'https://nobody.example\n', 'ca.crt': ca.pem });
  putApp(spoke, 'web', 'acme/web', A);
  for (const app of ['web', 'api', 'pay']) putApp(world.kube, app, `acme/${app}`, DECOY);
  putRemoteKustomization(world.kube, 'web', 'web', { configMap: 'prod-eu' });
  putRemoteKustomization(world.kube, 'api', 'api', { configMap: 'eks-prod' });
  putRemoteKustomization(world.kube, 'pay', 'pay', { configMap: 'no-token' });

  const bridge = await world.bridge({ CLUSTER_TOKEN_DIR: tokens });
  const live = (commit: string) =>
    world.github
      .deployments('acme', 'web')
      .find((d) => d.sha === commit)
      ?.statuses.at(-1)?.state === 'success';
  const state = await bridge.waitFor(
    'web reported, the others skipped',
    async () => {
      const s = await bridge.state();
      return live(A) && s.skipped.filter((k) => k.code === 'cluster_unavailable').length === 2 && s;
    },
    TIMEOUT_MS,
  );
  t.match(world.github.deployments('acme', 'web'), [{ sha: A, payload: { cluster: 'prod-eu', namespace: 'apps' } }], "the spoke's commit");
  t.match(
    state.clusters?.find((c) => c.name === 'prod-eu'),
    {
      local: false,
      answers: true,
      credentials: `ConfigMap flux-system/prod-eu (generic, token ${join(tokens, 'prod-eu')})`,
    },
  );
  const reason = (name: string) => state.skipped.find((k) => k.fluxObject === `Kustomization/flux-system/${name}`)?.reason;
  t.match(
    reason('api'),
    /provider "aws"\) is not supported: put a kubeconfig for eks-prod in CLUSTER_KUBECONFIG_DIR, or use spec.kubeConfig.secretRef \(of the providers, only generic is read, with CLUSTER_TOKEN_DIR\)/,
  );
  t.match(reason('pay'), /ConfigMap flux-system\/no-token: no token in CLUSTER_TOKEN_DIR has the audience "https:\/\/nobody.example"/);
  const metrics = await bridge.metrics();
  t.match(metrics, /gdb_cluster_read_failures_total\{cluster="eks-prod",reason="unsupported_provider"\} [1-9]/);
  t.match(metrics, /gdb_cluster_read_failures_total\{cluster="no-token",reason="no_credentials"\} [1-9]/);

  t.ok(spoke.requests.length > 0, 'the spoke was read over TLS, verified with the ConfigMap ca.crt');
  t.same([...new Set(spoke.requests.map((r) => r.authorization))], [`Bearer ${mine}`], 'only the token minted for the spoke');
  t.same(audOf(spoke.requests[0]?.authorization), [spoke.url], "its audience is the ConfigMap's address");
  t.notOk(
    spoke.requests.some((r) => r.authorization?.includes(KUBE_TOKEN) || r.authorization?.includes(elsewhere)),
    "neither the bridge's API token nor another audience's token reached the spoke",
  );
  t.same(
    world.kube.requests.filter((r) => /^\/apis\/apps\/|\/pods/.test(r.path)),
    [],
    'nothing read in the hub in a spoke’s place',
  );
  t.notOk(
    world.kube.requests.some((r) => r.method !== 'GET' || /tokenrequests|serviceaccounts\/.*\/token/.test(r.path)),
    'no TokenRequest, no write: the bridge changes nothing in the hub',
  );

  // The kubelet rotates the projected token in place: the next read uses the new one, without a restart.
  const rotated = jwt(spoke.url, 'second');
  spoke.token = rotated;
  writeFileSync(join(tokens, 'prod-eu'), rotated);
  const before = spoke.requests.length;
  putApp(spoke, 'web', 'acme/web', B);
  await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }));
  await bridge.waitFor('B reported with the rotated token', () => live(B), TIMEOUT_MS);
  t.same([...new Set(spoke.requests.slice(before).map((r) => r.authorization))], [`Bearer ${rotated}`], 'the rotated token');
  t.same(
    spoke.requests.filter((r) => r.status === 401),
    [],
    'never refused',
  );
  t.equal(world.kube.writes().length + spoke.writes().length, 0, 'the bridge never writes to a cluster');
});
