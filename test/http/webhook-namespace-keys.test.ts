/**
 * Issue 22, item 4: one HMAC key per namespace (WEBHOOK_TOKEN_DIR). Before, the one key was copied into
 * every application namespace, so whoever read Secrets in one could sign events naming any other.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { createMetrics } from '../../src/common/metrics.js';
import { buildApp } from '../../src/http/http-app.js';
import { signBody } from '../../src/http/hmac.js';
import { WebhookKeyring, readNamespaceKeys } from '../../src/http/webhook-keys.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { fluxEvent } from '../harness/bridge-process.js';
import { openDatabase } from '../harness/database.js';

const SHARED = Buffer.from('shared-key-of-the-flux-system-provider-0001');
const TEAM_A = 'key-of-team-a-0000000000000000000000000000\n';
const TEAM_B = 'key-of-team-b-0000000000000000000000000000\n';

/** A directory laid out as kubelet mounts a Secret: the keys behind `..data`, swapped atomically on update. */
function secretVolume(t: Test, keys: Record<string, string>): { dir: string; update: (keys: Record<string, string>) => void } {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-keys-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  let version = 0;
  const update = (next: Record<string, string>) => {
    const data = `..${++version}`;
    mkdirSync(join(dir, data));
    for (const [ns, key] of Object.entries(next)) writeFileSync(join(dir, data, ns), key);
    symlinkSync(data, join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    for (const ns of Object.keys(next)) {
      try {
        symlinkSync(join('..data', ns), join(dir, ns));
      } catch {
        /* already linked */
      }
    }
  };
  update(keys);
  return { dir, update };
}

async function app(t: Test, keys: { shared?: Buffer; dir?: string }) {
  const db = openDatabase(':memory:');
  const metrics = createMetrics();
  const a = await buildApp({
    webhookKeys: new WebhookKeyring({ ...keys, now: Date.now }),
    queue: new QueueStore(db),
    deployments: new DeploymentStore(db),
    sources: new SourceStore(db),
    metrics,
    log: pino({ level: 'silent' }),
    now: Date.now,
    onEnqueued: () => {},
    isShuttingDown: () => false,
    readiness: () => ({ ready: true, reasons: [] }),
    activeReconciles: () => 0,
  });
  t.teardown(async () => {
    await a.close();
    db.close();
  });
  const post = async (namespace: string, key: string | Buffer) => {
    const body = fluxEvent('Kustomization', namespace, 'web');
    const res = await a.inject({
      method: 'POST',
      url: '/webhook',
      headers: { 'content-type': 'application/json', 'x-signature': signBody(key, body) },
      payload: body,
    });
    return { status: res.statusCode, body: res.json<{ error?: string; status?: string }>() };
  };
  return { post, metrics };
}

t.test("a namespace's key signs only that namespace's events", async (t) => {
  const { dir } = secretVolume(t, { 'team-a': TEAM_A, 'team-b': TEAM_B });
  const { post, metrics } = await app(t, { dir });
  t.equal((await post('team-a', TEAM_A)).status, 202);
  t.equal((await post('team-b', TEAM_B)).status, 202);
  const forged = await post('team-b', TEAM_A);
  t.equal(forged.status, 401, "team-a's key cannot speak for team-b: only team-b's key (and the shared one) is tried");
  t.equal(forged.body.error, 'X-Signature does not match the body (tried the key of namespace team-b)');
  t.equal((await post('flux-system', TEAM_A)).status, 401);
  t.equal((await post('flux-system', TEAM_A)).body.error, 'no webhook key for namespace flux-system in WEBHOOK_TOKEN_DIR');
  t.equal((await post('team-a', 'a key nobody has, long enough to be one')).status, 401);
  const text = await metrics.registry.metrics();
  t.match(text, /^gdb_webhook_responses_total\{code="401"\} 4$/m);
  t.match(text, /^gdb_events_total\{kind="unknown",result="bad_signature"\} 4$/m);
});

t.test('the shared key keeps working for every namespace, beside the per-namespace ones', async (t) => {
  const { dir } = secretVolume(t, { 'team-a': TEAM_A });
  const { post } = await app(t, { shared: SHARED, dir });
  t.equal((await post('team-b', SHARED)).status, 202);
  t.equal((await post('team-a', TEAM_A)).status, 202);
  t.equal((await post('team-b', TEAM_A)).status, 401);
  const only = await app(t, { shared: SHARED });
  t.equal((await only.post('anywhere', SHARED)).status, 202, 'WEBHOOK_TOKEN alone: as before');
});

t.test('a rotated Secret is read again: the new key works, the old one no longer does', async (t) => {
  const vol = secretVolume(t, { 'team-a': TEAM_A });
  const { post } = await app(t, { dir: vol.dir });
  t.equal((await post('team-a', TEAM_A)).status, 202);
  const rotated = 'rotated-key-of-team-a-00000000000000000000';
  vol.update({ 'team-a': rotated, 'team-c': TEAM_B });
  t.equal((await post('team-a', rotated)).status, 202);
  t.equal((await post('team-a', TEAM_A)).status, 401);
  t.equal((await post('team-c', TEAM_B)).status, 202, 'a namespace added later');
});

t.test('only files named like a namespace are keys; Kubernetes links and dotfiles are not', (t) => {
  const { dir } = secretVolume(t, { 'team-a': TEAM_A, Not_A_Namespace: 'x' });
  writeFileSync(join(dir, '.hidden'), 'x');
  t.same([...readNamespaceKeys(dir).keys()], ['team-a']);
  t.same(readNamespaceKeys(dir).get('team-a'), Buffer.from(TEAM_A), 'byte for byte, the newline kept');
  t.end();
});

t.test('issue 32: only the shared key and the key of the namespace the event names are tried, whatever the number of keys', (t) => {
  const keys: Record<string, string> = {};
  for (let i = 0; i < 300; i++) keys[`team-${i}`] = `key-of-team-${i}-`.padEnd(40, '0');
  const { dir } = secretVolume(t, keys);
  const ring = new WebhookKeyring({ dir, shared: SHARED, now: Date.now });
  const body = Buffer.from(fluxEvent('Kustomization', 'team-7', 'web'));
  t.same(ring.verify(body, signBody(keys['team-7'] ?? '', body), 'team-7'), { ok: true, namespace: 'team-7' });
  t.same(ring.verify(body, signBody(SHARED, body), 'team-7'), { ok: true, namespace: null });
  // Signed with another namespace's key: the old keyring went through all 300 and found it (then answered 403).
  const other = ring.verify(body, signBody(keys['team-8'] ?? '', body), 'team-7');
  t.same(other, { ok: false, reason: 'X-Signature does not match the body (tried the shared key and the key of namespace team-7)' });
  t.equal(ring.verify(body, signBody(keys['team-8'] ?? '', body), undefined).ok, false, 'no namespace named: the shared key only');
  t.end();
});
