/**
 * The gauges /metrics reads at scrape time: how long the due queue waits, which sources keep failing,
 * when Kubernetes last answered, the Forgejo pause; and webhook answers counted by status code.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../src/common/metrics.js';
import { forgejoForge } from '../../src/forges/forgejo/forgejo-forge.js';
import { parseForgejoUrl } from '../../src/forges/forgejo/forgejo-url.js';
import { DEFAULT_CONTEXT_TEMPLATE, parseContextTemplate } from '../../src/forges/forgejo/status-context.js';
import type { KubeHealth } from '../../src/health/kube-health.js';
import { buildApp } from '../../src/http/http-app.js';
import { signBody } from '../../src/http/hmac.js';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { assembleForge } from '../../src/forges/assemble-forge.js';
import { openDatabase } from '../harness/database.js';

const T0 = Date.UTC(2025, 0, 1);
const KEY = Buffer.from('monitoring-key');
const web: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'web' };
const shop: SourceRef = { kind: 'HelmRelease', namespace: 'apps', name: 'shop' };

async function setup(t: Test) {
  const db = openDatabase(':memory:');
  const clock = { now: T0 };
  const kube: KubeHealth = { lastOk: null, lastError: null };
  const now = () => clock.now;
  const metrics = createMetrics();
  const log = pino({ level: 'silent' });
  const deployments = new DeploymentStore(db);
  const refusals = new RefusalStore(db);
  const url = parseForgejoUrl('https://forgejo.example');
  const template = parseContextTemplate(DEFAULT_CONTEXT_TEMPLATE);
  if ('problem' in url || 'problem' in template) throw new Error('bad Forgejo settings');
  const forge = assembleForge(
    forgejoForge,
    { forgejoUrl: url, forgejoToken: { kind: 'inline', value: 'token' }, forgejoStatusContext: template },
    { db, deployments, refusals, metrics, log, now, userAgent: 'test', dryRun: false },
  );
  if (forge === undefined) throw new Error('Forgejo not built');
  const forgejo = forge.health;
  const queue = new QueueStore(db);
  const sources = new SourceStore(db);
  const app = await buildApp({
    webhookKey: KEY,
    queue,
    deployments,
    sources,
    metrics,
    log,
    now,
    onEnqueued: () => undefined,
    isShuttingDown: () => false,
    readiness: () => ({ ready: true, reasons: [] }),
    activeReconciles: () => 0,
    kubeHealth: () => ({ ...kube }),
    forges: [forge],
    refusals,
  });
  t.teardown(async () => {
    await app.close();
    db.close();
  });
  /** One sample of the exposition, by its exact series text. */
  const sample = async (series: string) => {
    const text = (await app.inject('/metrics')).body;
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  return { app, clock, kube, forgejo, queue, sources, sample };
}

t.test('queue: how long the source due longest has waited; sources retried later do not count', async (t) => {
  const s = await setup(t);
  t.equal(await s.sample('gdb_queue_oldest_item_age_seconds'), 0, 'empty queue');
  s.queue.schedule(shop, T0 + 60_000);
  t.equal(await s.sample('gdb_queue_oldest_item_age_seconds'), 0, 'a re-check in a minute is not due yet');
  s.queue.enqueue(web, T0 - 90_000);
  t.equal(await s.sample('gdb_queue_oldest_item_age_seconds'), 90, 'due 90 s ago');
  s.queue.claim(s.clock.now, 1);
  t.equal(await s.sample('gdb_queue_oldest_item_age_seconds'), 0, 'taken: no longer waiting');
  s.clock.now = T0 + 75_000;
  t.equal(await s.sample('gdb_queue_oldest_item_age_seconds'), 15, 'the re-check became due 15 s ago');
});

t.test('failing sources: counted from their first failure in a row until one run goes through', async (t) => {
  const s = await setup(t);
  t.equal(await s.sample('gdb_flux_objects_failing'), 0);
  t.equal(await s.sample('gdb_flux_objects_failing_longest_seconds'), 0);
  s.sources.recordError(web, 'GitHub answered 502', T0);
  s.sources.recordError(web, 'GitHub answered 502', T0 + 30_000);
  s.sources.recordError(shop, 'registry timeout', T0 + 60_000);
  s.clock.now = T0 + 660_000;
  t.equal(await s.sample('gdb_flux_objects_failing'), 2);
  t.equal(await s.sample('gdb_flux_objects_failing_longest_seconds'), 660, 'from the first failure of web, not its last');
  s.sources.recordSuccess(web);
  t.equal(await s.sample('gdb_flux_objects_failing'), 1);
  t.equal(await s.sample('gdb_flux_objects_failing_longest_seconds'), 600, 'shop is the one failing longest now');
  s.sources.recordSuccess(shop);
  s.sources.recordError(web, 'again', T0 + 700_000);
  t.equal(await s.sample('gdb_flux_objects_failing_longest_seconds'), 0, 'a new run of failures starts a new clock');
  s.clock.now = T0 + 710_000;
  t.equal(await s.sample('gdb_flux_objects_failing_longest_seconds'), 10);
});

t.test('Kubernetes: the last answer, or the start before the first', async (t) => {
  const s = await setup(t);
  s.clock.now = T0 + 400_000;
  t.equal(await s.sample('gdb_kube_last_success_timestamp_seconds'), T0 / 1000, 'no answer yet: the start');
  s.kube.lastOk = T0 + 390_500;
  t.equal(await s.sample('gdb_kube_last_success_timestamp_seconds'), (T0 + 390_500) / 1000);
});

t.test('Forgejo pause: its end while paused, 0 otherwise', async (t) => {
  const s = await setup(t);
  t.equal(await s.sample('gdb_forge_paused_until_timestamp_seconds{forge="forgejo",scope="all"}'), 0);
  s.forgejo.rateLimited({ kind: 'secondary', until: T0 + 120_000, reason: '429 with Retry-After: 120' });
  t.equal(await s.sample('gdb_forge_paused_until_timestamp_seconds{forge="forgejo",scope="all"}'), T0 / 1000 + 120);
  t.equal(await s.sample('gdb_forge_paused_until_timestamp_seconds{forge="forgejo",scope="token"}'), T0 / 1000 + 120, 'its scope');
  t.equal(await s.sample('gdb_forge_credentials_ok{forge="forgejo"}'), 1);
  s.clock.now = T0 + 121_000;
  t.equal(await s.sample('gdb_forge_paused_until_timestamp_seconds{forge="forgejo",scope="all"}'), 0, 'over');
  t.equal(
    await s.sample('gdb_forge_paused_until_timestamp_seconds{forge="forgejo",scope="token"}'),
    undefined,
    "the scope's series is gone",
  );
});

t.test('webhook answers are counted by status code, refusals before the handler included', async (t) => {
  const s = await setup(t);
  const body = JSON.stringify({ involvedObject: { kind: 'Kustomization', namespace: 'flux-system', name: 'web' } });
  const post = (signature: string, contentType = 'application/json') =>
    s.app.inject({ method: 'POST', url: '/webhook', payload: body, headers: { 'content-type': contentType, 'x-signature': signature } });
  t.equal((await post('sha256=00')).statusCode, 401);
  t.equal((await post('sha256=00')).statusCode, 401);
  t.equal((await post(signBody(KEY, body), 'text/plain')).statusCode, 415);
  t.equal(await s.sample('gdb_webhook_responses_total{code="401"}'), 2);
  t.equal(await s.sample('gdb_webhook_responses_total{code="415"}'), 1);
});
