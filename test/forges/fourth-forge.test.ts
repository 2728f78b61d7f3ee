/**
 * A fourth forge is one folder (its driver, here test/harness/fourth-forge/) and one entry in the list of drivers:
 * its settings join the configuration and the "at least one forge" rule, it is routed to, and the core assembles it
 * like the three real ones (refusal guard, outcomes recorded by the store, /state, gauges, dry run).
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createMetrics } from '../../src/common/metrics.js';
import { readSettings } from '../../src/common/settings-schema.js';
import { RefusedByForge } from '../../src/forges/refusal-guard.js';
import { DRIVERS, buildForges, forgeUrls, settingsTablesOf, type ForgeSettings } from '../../src/forges/registry.js';
import { resolveTarget } from '../../src/metadata/resolve-target.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { keepOutcomes } from '../../src/features/dora/dora-store.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { acmeForge, acmeServer, type AcmeSettings } from '../harness/fourth-forge/acme-driver.js';
import { openDatabase } from '../harness/database.js';

const DRIVERS_4 = [...DRIVERS, acmeForge];
const ENV = { ACME_URL: 'https://acme.example.com', ACME_TOKEN: 'acme-token' };
const SHA = '3f786850e387550fdab836ed7e6dc881de23001b';
const log = pino({ level: 'silent' });

const read = (drivers: Parameters<typeof settingsTablesOf>[0], env: NodeJS.ProcessEnv) => {
  const { reporting, service } = settingsTablesOf(drivers);
  return readSettings({ ...reporting, ...service }, env, () => Buffer.from(''));
};

t.test('its settings join the configuration, and the rule that one forge is configured names it', (t) => {
  const ok = read(DRIVERS_4, ENV);
  t.ok(ok.ok, 'Acme alone configures the bridge');
  if (ok.ok) t.match(ok.config, { acmeUrl: 'https://acme.example.com', acmeToken: { kind: 'inline' } });
  const none = read(DRIVERS_4, {});
  t.match(none, {
    ok: false,
    problems: [/^no forge is configured: .*GitLab \(GITLAB_URL with GITLAB_TOKEN\), Acme \(ACME_URL with ACME_TOKEN\)$/],
  });
  t.match(read(DRIVERS, ENV), { ok: false, problems: [/^no forge is configured/] }, 'without its entry, the registry knows no Acme');
  t.end();
});

function world(t: Test, dryRun = false) {
  const settings = read(DRIVERS_4, ENV);
  if (!settings.ok) throw new Error(settings.problems.join('; '));
  const config = settings.config as unknown as ForgeSettings & AcmeSettings;
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  // The store announces each outcome; DORA keeps them (keepOutcomes), as in the bridge.
  const deployments = new DeploymentStore(keepOutcomes(db));
  const metrics = createMetrics();
  const deps = { db, deployments, refusals: new RefusalStore(db), metrics, log, now: () => Date.now(), userAgent: 'gdb-test', dryRun };
  const forges = buildForges(config, deps, DRIVERS_4);
  t.teardown(() => forges.stop());
  const target = (repo: string) => {
    const image = 'registry.example.com/shop/web:1';
    const source = { kind: 'Kustomization' as const, namespace: 'flux-system', name: 'web' };
    const workload = { kind: 'Deployment', namespace: 'web', name: 'web' };
    const annotations = { repository: `https://acme.example.com/shop/${repo}`, commit: SHA, environment: 'production' };
    const r = resolveTarget(source, { ...workload, annotations, containers: [{ name: 'app', image }] }, { name: 'app', image }, undefined, {
      cluster: 'eu-1',
      description: 'Deployed by Flux',
      forges: forges.hosts,
      controllerVersion: '0.1.0',
    });
    if (!('target' in r)) throw new Error(r.skip);
    return { target: r.target, origin: { source, workload, container: 'app', image } };
  };
  const outcomes = () => db.prepare(`SELECT forge, environment, outcome FROM deployment_outcomes`).all();
  return { config, forges, deployments, metrics, target, outcomes };
}

t.test('assembled and routed like any forge: written once per state, outcomes recorded by the store, retired', async (t) => {
  const w = world(t);
  t.same(
    w.forges.list.map((f) => f.name),
    ['acme'],
  );
  t.same(forgeUrls(w.config, DRIVERS_4), [{ setting: 'ACME_URL', url: 'https://acme.example.com' }]);
  const acme = w.forges.list[0]!;
  await w.forges.start();
  const p = w.target('web');
  t.equal(p.target.forge, 'acme', 'its host routes the repository to it');
  const before = acmeServer.writes.length;
  t.same((await acme.publish(p.target, p.origin, 'in_progress', 'Progressing')).sent, ['in_progress']);
  t.same((await acme.publish(p.target, p.origin, 'success', 'Rollout complete')).sent, ['success']);
  t.same((await acme.publish(p.target, p.origin, 'success', 'Rollout complete')).sent, [], 'the same state: nothing sent');
  t.same(acmeServer.writes.slice(before), [`shop/web@${SHA} production in_progress`, `shop/web@${SHA} production success`]);
  t.same(w.outcomes(), [{ forge: 'acme', environment: 'production', outcome: 'success' }], 'the store recorded the outcome');
  const row = w.deployments.get(p.target)!;
  t.match(acme.describe(row), { forgeState: 'success', url: `https://acme.example.com/shop/web/commit/${SHA}` });
  t.equal(await acme.retire(row, 'workload deleted'), true);
  t.equal(w.deployments.get(p.target)?.state, 'gone');
  acme.scrape();
  t.match(await w.metrics.registry.getSingleMetricAsString('gdb_forge_credentials_ok'), /forge="acme"\} 1/);
  t.match(acme.state(), { url: 'https://acme.example.com', credentials: { state: 'ok' }, paused: null, refusals: [] });
});

t.test('a refused repository is a skip with its reason, asked once; under DRY_RUN nothing is written', async (t) => {
  const w = world(t);
  const acme = w.forges.list[0]!;
  acmeServer.refused.add('shop/locked');
  const p = w.target('locked');
  const calls = acmeServer.calls;
  await t.rejects(acme.publish(p.target, p.origin, 'success', 'Rollout complete'), RefusedByForge);
  await t.rejects(acme.publish(p.target, p.origin, 'success', 'Rollout complete'), RefusedByForge, 'remembered');
  t.equal(acmeServer.calls - calls, 1, 'asked once');
  t.match(acme.state(), { refusals: [{ code: 'acme_refused', reason: 'Acme refused shop/locked (403)' }] });

  const dry = world(t, true).forges.list[0]!;
  const writes = acmeServer.writes.length;
  const q = w.target('dry');
  t.same((await dry.publish(q.target, q.origin, 'success', 'Rollout complete')).sent, ['success']);
  t.equal(acmeServer.writes.length, writes, 'logged, not sent');
});
