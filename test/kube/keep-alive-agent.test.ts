import t from 'tap';
import http from 'node:http';
import https from 'node:https';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createKubeReader } from '../../src/kube/kube-client.js';
import { keepAliveAgents } from '../../src/kube/keep-alive-agent.js';
import { writeKubeconfig } from '../harness/fake-kube.js';

/** Whether an agent keeps its connections (set at run time, not in @types/node's Agent). */
const keepsAlive = (agent: http.Agent) => (agent as unknown as { keepAlive: boolean }).keepAlive;

const CA = Buffer.from('-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n');

t.test('one kept keep-alive agent per TLS setting, whatever fresh agent client-node built', (t) => {
  const keep = keepAliveAgents(1_000);
  const first = keep(new https.Agent({ ca: CA }));
  t.ok(first instanceof https.Agent, 'an https agent for https');
  t.equal(keepsAlive(first), true, 'that keeps connections');
  // client-node decodes the CA anew for each request: equal bytes, another Buffer.
  t.equal(keep(new https.Agent({ ca: Buffer.from(CA) })), first, 'the same CA bytes: the same agent');
  const rotated = keep(new https.Agent({ ca: CA, cert: 'client-cert-2', key: 'client-key-2' }));
  t.not(rotated, first, 'another client certificate: another agent');
  t.equal(keep(new https.Agent({ ca: CA, cert: 'client-cert-2', key: 'client-key-2' })), rotated, 'then kept');
  t.not(keep(new https.Agent({ ca: CA, cert: 'client-cert-2', key: 'client-key-2', rejectUnauthorized: false })), rotated);

  const plain = keep(new http.Agent());
  t.equal(keepsAlive(plain), true, 'plain http (insecure-skip-tls-verify) keeps connections too');
  t.equal(keep(new http.Agent()), plain);

  class ProxyAgent extends https.Agent {}
  const proxy = new ProxyAgent();
  t.equal(keep(proxy), proxy, "a proxy's agent is left as it is");
  t.end();
});

t.test('the Kubernetes reader sends its requests over one kept connection', async (t) => {
  let connections = 0;
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    paths.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: 'kustomize.toolkit.fluxcd.io/v1', kind: 'Kustomization', metadata: { name: 'apps' } }));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  const dir = mkdtempSync(join(tmpdir(), 'gdb-keep-alive-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const reader = createKubeReader({ kubeconfigPath: writeKubeconfig(dir, url, 'token'), timeoutMs: 5_000 });
  for (let i = 0; i < 5; i++) await reader.getFluxObject({ kind: 'Kustomization', namespace: 'flux-system', name: 'apps' });
  t.equal(paths.length, 5, 'five requests');
  t.equal(connections, 1, 'one connection');
});
