/**
 * A spoke's credentials: a kubeconfig from a Secret is someone else's file. Hostile ones (exec, token file,
 * certificate files) are refused with their reason and no request at all reaches the spoke, none carrying the
 * bridge's own token; workload identity (configMapRef) is a skip naming its provider and the alternative; and a
 * kubeconfig of CLUSTER_KUBECONFIG_DIR named for the cluster is used instead of Flux's Secret, which is then never read.
 */
import t from 'tap';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MAIN_JS } from '../harness/bridge-process.js';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { configMap, kubeconfigSecret } from '../harness/core-objects.js';
import { kubeconfigText } from '../harness/fake-kube.js';
import { putApp, putRemoteKustomization, startSpoke } from '../harness/spokes.js';
import { KUBE_TOKEN, startWorld } from '../harness/world.js';
import { sha } from './scenario.js';

const A = sha('fleet-credentials-a');
const run = promisify(execFile);
const TIMEOUT_MS = 60_000;

/** The spoke's kubeconfig with its user replaced by `user` (YAML lines under `user:`). */
const withUser = (url: string, user: string[]) =>
  kubeconfigText(url, 'unused').replace(/ {2}user:\n {4}token: "unused"\n/, `  user:\n${user.map((l) => `    ${l}\n`).join('')}`);

t.test('hostile kubeconfigs are refused: no request reaches the spoke, no local credential or file is used', async (t) => {
  const world = await startWorld();
  const spoke = await startSpoke(world.kube, 'target');
  t.teardown(async () => {
    await world.close();
    await spoke.kube.close();
  });
  const marker = join(world.dir, 'exec-ran');
  const hubToken = join(world.dir, 'hub-token');
  writeFileSync(hubToken, KUBE_TOKEN);
  const hostile: Record<string, string[]> = {
    exec: ['exec:', '  apiVersion: client.authentication.k8s.io/v1', '  command: /bin/sh', `  args: ["-c", "touch ${marker}"]`],
    tokenfile: [`tokenFile: ${hubToken}`],
    certfiles: [`client-certificate: ${world.kubeconfig}`, `client-key: ${world.kubeconfig}`],
  };
  putApp(spoke.kube, 'web', 'acme/web', A);
  for (const [name, user] of Object.entries(hostile)) {
    world.kube.put(kubeconfigSecret({ namespace: 'flux-system', name: `${name}-kubeconfig`, text: withUser(spoke.kube.url, user) }));
    putRemoteKustomization(world.kube, name, 'web', { secretName: `${name}-kubeconfig` });
  }
  world.kube.put(
    configMap({ namespace: 'flux-system', name: 'eks-prod', data: { provider: 'aws', cluster: 'arn:aws:eks:eu-west-1:1:cluster/prod' } }),
  );
  putRemoteKustomization(world.kube, 'identity', 'web', { configMap: 'eks-prod' });

  const bridge = await world.bridge();
  const state = await bridge.waitFor(
    'every Flux object skipped',
    async () => {
      const s = await bridge.state();
      return s.skipped.filter((k) => k.code === 'cluster_unavailable').length === 4 && s;
    },
    TIMEOUT_MS,
  );
  const reason = (name: string) => state.skipped.find((k) => k.fluxObject === `Kustomization/flux-system/${name}`)?.reason;
  t.match(
    reason('exec'),
    /cluster exec: Secret flux-system\/exec-kubeconfig key value: not a self-contained kubeconfig: its user runs a program \(exec\)/,
  );
  t.match(reason('tokenfile'), /its user reads a token from a file \(tokenFile\)/);
  t.match(reason('certfiles'), /its user reads the client certificate from a file/);
  t.match(
    reason('identity'),
    /workload identity \(spec.kubeConfig.configMapRef eks-prod, provider "aws"\) is not supported: put a kubeconfig for eks-prod in CLUSTER_KUBECONFIG_DIR, or use spec.kubeConfig.secretRef/,
  );
  t.same(spoke.kube.requests, [], 'no request at all reached the spoke');
  t.notOk(existsSync(marker), 'the exec command never ran');
  t.same(
    world.kube.requests.filter((r) => r.path.startsWith('/apis/apps/')),
    [],
    'nothing read in the hub instead',
  );
  t.same(world.github.writes(), [], 'nothing reported');
  t.match(await bridge.metrics(), /gdb_cluster_read_failures_total\{cluster="exec",reason="kubeconfig_refused"\} [1-9]/);
  t.match(await bridge.metrics(), /gdb_cluster_read_failures_total\{cluster="eks-prod",reason="unsupported_provider"\} [1-9]/);
  t.equal((await bridge.readyz()).status, 200, 'still ready');
});

t.test("CLUSTER_KUBECONFIG_DIR: the bridge's own kubeconfig for the cluster; Flux's Secret is never read", async (t) => {
  const world = await startWorld();
  const spoke = await startSpoke(world.kube, 'prod-eu', 'flux-admin-token');
  t.teardown(async () => {
    await world.close();
    await spoke.kube.close();
  });
  const dir = join(world.dir, 'clusters');
  mkdirSync(dir);
  // The spoke accepts the bridge's own read-only token too (a second identity); Flux's Secret holds the admin one.
  spoke.kube.token = 'bridge-readonly-token';
  writeFileSync(join(dir, 'prod-eu.yaml'), kubeconfigText(spoke.kube.url, 'bridge-readonly-token'));
  putApp(spoke.kube, 'web', 'acme/web', A);
  putRemoteKustomization(world.kube, 'web', 'web', { secretName: spoke.secretName });
  const bridge = await world.bridge({ CLUSTER_KUBECONFIG_DIR: dir });
  await bridge.waitFor(
    'reported',
    () => world.github.deployments('acme', 'web')[0]?.statuses.some((s) => s.state === 'success'),
    TIMEOUT_MS,
  );
  t.same(
    world.kube.requests.filter((r) => r.path.includes('/secrets/')),
    [],
    "Flux's Secret was never read",
  );
  t.same([...new Set(spoke.kube.requests.map((r) => r.authorization))], ['Bearer bridge-readonly-token']);
  const state = await bridge.state();
  t.match(state.clusters, [
    { name: 'sim-cluster', local: true },
    { name: 'prod-eu', local: false, answers: true, credentials: `file ${join(dir, 'prod-eu.yaml')}` },
  ]);
});

t.test('explain on a remote Flux object says which cluster and credentials, or why the cluster cannot be read', async (t) => {
  const world = await startWorld();
  const spoke = await startSpoke(world.kube, 'prod-eu');
  t.teardown(async () => {
    await world.close();
    await spoke.kube.close();
  });
  putApp(spoke.kube, 'web', 'acme/web', A);
  putApp(world.kube, 'web', 'acme/web', sha('explain-decoy'));
  putRemoteKustomization(world.kube, 'web', 'web', { secretName: spoke.secretName });
  putRemoteKustomization(world.kube, 'lost', 'web', { secretName: 'gone-kubeconfig' });
  const env = { PATH: process.env.PATH ?? '', ...world.env() };
  const explain = (name: string) => run(process.execPath, [MAIN_JS, 'explain', `ks/flux-system/${name}`], { env });
  const { stdout } = await explain('web');
  t.match(stdout, /\n {2}remote cluster prod-eu, read with Secret flux-system\/prod-eu-kubeconfig key value\n/);
  t.match(stdout, new RegExp(`→ acme/web@${A.slice(0, 12)} environment staging`), "the spoke's commit, not the hub's decoy");
  const lost = await explain('lost');
  t.match(lost.stdout, /cluster gone: Secret flux-system\/gone-kubeconfig not found: its workloads are not read anywhere else/);
});
