/** Reading kubeconfigs without client-node's KubeConfig: files, KUBECONFIG merges, the pod's service account, credentials. */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { currentOf, defaultEntries, entriesFromFile, entriesInCluster } from '../../src/kube/kube-config.js';
import { ClusterAccess } from '../../src/kube/kube-credentials.js';
import { REPO_ROOT } from '../fixtures/locate.js';

const dir = mkdtempSync(join(tmpdir(), 'kube-config-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a kubeconfig of one cluster, one user and one context, all named `name`. */
function config(file: string, name: string, cluster: string[], user: string[], current = true): string {
  const path = join(dir, file);
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${name}`,
    '  cluster:',
    ...cluster.map((l) => `    ${l}`),
    'users:',
    `- name: ${name}`,
    '  user:',
    ...user.map((l) => `    ${l}`),
    'contexts:',
    `- name: ${name}`,
    '  context:',
    `    cluster: ${name}`,
    `    user: ${name}`,
    ...(current ? [`current-context: ${name}`] : []),
  ];
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('a file: its current context, relative certificate paths taken from its directory', (t) => {
  const path = config(
    'rel',
    'a',
    ['server: https://api.example:6443/', 'certificate-authority: ca.pem'],
    ['client-certificate: c.pem', 'client-key: /abs/k.pem'],
  );
  const { cluster, user } = currentOf(entriesFromFile(path));
  t.equal(cluster?.server, 'https://api.example:6443', 'trailing slash dropped, as client-node does');
  t.equal(cluster?.caFile, join(dir, 'ca.pem'));
  t.equal(user?.certFile, join(dir, 'c.pem'));
  t.equal(user?.keyFile, '/abs/k.pem');
  t.throws(
    () => entriesFromFile(config('bad', 'b', ['insecure-skip-tls-verify: true'], ['token: x'])),
    /clusters\[0\]\.cluster\.server is missing/,
  );
  t.end();
});

t.test('KUBECONFIG: every file merged, a later current-context wins, a repeated name is refused', (t) => {
  const one = config('one', 'one', ['server: https://one:6443'], ['token: t1']);
  const two = config('two', 'two', ['server: https://two:6443'], ['token: t2']);
  const quiet = config('quiet', 'three', ['server: https://three:6443'], ['token: t3'], false);
  const merged = defaultEntries({ KUBECONFIG: `${one}:${two}:${quiet}` }, 'linux');
  t.same(
    merged.clusters.map((c) => c.name),
    ['one', 'two', 'three'],
  );
  t.equal(currentOf(merged).cluster?.server, 'https://two:6443');
  t.throws(() => defaultEntries({ KUBECONFIG: `${one}:${one}` }, 'linux'), /Duplicate cluster: one/);
  const home = mkdtempSync(join(dir, 'home-'));
  t.throws(() => defaultEntries({ HOME: home }, 'linux'), /no kubeconfig found/);
  t.end();
});

t.test('in a cluster: the service host and port, https unless a plain http port, IPv6 in brackets, the token file', (t) => {
  const v4 = entriesInCluster({ KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' });
  t.equal(currentOf(v4).cluster?.server, 'https://10.0.0.1:443');
  t.equal(currentOf(v4).cluster?.caFile, '/var/run/secrets/kubernetes.io/serviceaccount/ca.crt');
  t.same(currentOf(v4).user?.authProvider, {
    name: 'tokenFile',
    config: { tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' },
  });
  t.equal(
    currentOf(entriesInCluster({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '8080' })).cluster?.server,
    'http://[fd00::1]:8080',
  );
  t.end();
});

t.test('credentials: TLS settings, token, impersonation and basic auth on every request', async (t) => {
  const path = config(
    'creds',
    'c',
    ['server: https://api:6443', `certificate-authority-data: ${b64('CA')}`, 'tls-server-name: api.internal'],
    [
      `client-certificate-data: ${b64('CERT')}`,
      `client-key-data: ${b64('KEY')}`,
      'token: tok',
      'as: someone',
      'username: u',
      'password: p',
    ],
  );
  const opts: https.RequestOptions = {};
  await new ClusterAccess(entriesFromFile(path)).applyToHTTPSOptions(opts);
  t.same(opts.headers, { 'Impersonate-User': 'someone', Authorization: 'Bearer tok' });
  t.equal(opts.auth, 'u:p');
  t.equal(String(opts.ca), 'CA');
  t.equal(opts.servername, 'api.internal');
  t.ok(opts.agent instanceof https.Agent, 'an https agent');
  const agentOptions = (opts.agent as https.Agent).options;
  t.equal(String(agentOptions.cert), 'CERT');
  t.equal((agentOptions.key as Buffer).toString(), 'KEY');
  t.equal(agentOptions.rejectUnauthorized, undefined, 'verification left on');
  t.end();
});

t.test(
  'credentials: a token file is read (and re-read by client-node as it rotates); plain http needs insecure-skip-tls-verify',
  async (t) => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'from-file');
    const path = config(
      'file',
      'f',
      ['server: http://127.0.0.1:1', 'insecure-skip-tls-verify: true'],
      ['auth-provider:', '  name: tokenFile', '  config:', `    tokenFile: ${tokenFile}`],
    );
    const opts: https.RequestOptions = {};
    await new ClusterAccess(entriesFromFile(path)).applyToHTTPSOptions(opts);
    t.same(opts.headers, { Authorization: 'Bearer from-file' });
    t.equal(opts.rejectUnauthorized, false);
    t.equal(opts.agent?.constructor, http.Agent, 'a plain http agent');
    const insecure = config('insecure', 'i', ['server: http://127.0.0.1:1'], ['token: x']);
    await t.rejects(new ClusterAccess(entriesFromFile(insecure)).applyToHTTPSOptions({}), /HTTP protocol is not allowed/);
    t.end();
  },
);

t.test('credentials: an exec plugin (client.authentication.k8s.io/v1, as EKS and GKE use) gives the bearer token', async (t) => {
  const plugin = join(dir, 'exec-plugin.sh');
  const credential = { apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-exec' } };
  writeFileSync(plugin, `#!/bin/sh\necho '${JSON.stringify(credential)}'\n`, { mode: 0o755 });
  const path = config(
    'exec',
    'e',
    ['server: https://127.0.0.1:1'],
    ['exec:', '  apiVersion: client.authentication.k8s.io/v1', `  command: ${plugin}`, '  interactiveMode: Never'],
  );
  const opts: https.RequestOptions = {};
  await new ClusterAccess(entriesFromFile(path)).applyToHTTPSOptions(opts);
  t.same(opts.headers, { Authorization: 'Bearer from-exec' });
  t.equal(opts.agent?.constructor, https.Agent);
  t.end();
});

t.test("no module of the bridge imports client-node's index, config.js or generated API at run time (about 55 MiB)", (t) => {
  const src = join(REPO_ROOT, 'src');
  const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  t.ok(files.length > 50, 'the sources were found');
  // Type-only imports cost nothing at run time; the small modules under dist/ (config_types, *_auth) are allowed.
  const heavy = /^import (?!type )[^;]*from '@kubernetes\/client-node(\/dist\/(index|config|gen\/[^']*)\.js)?';/gm;
  for (const f of files) t.same(readFileSync(join(src, f), 'utf8').match(heavy) ?? [], [], f);
  t.end();
});
