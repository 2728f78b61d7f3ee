/**
 * Every PromQL expression of the dashboard and the alerts checked against reality: the real bridge
 * process meets a simulated world (a GitHub rollout through a rate-limit pause, a Forgejo preview
 * through a 429, a workload skipped, a GitHub refusal, a webhook with a bad signature), a real
 * Prometheus (Debian's `prometheus` package) scrapes its /metrics every second, and each dashboard
 * query, through Prometheus' HTTP API, returns series. An alert is quiet when all is well, so its
 * expression must evaluate and each series selector in it must return series; of them all, only the
 * bad signature's alert holds now.
 */
import t, { type Test } from 'tap';
import { fluxEvent, type BridgeProcess } from '../harness/bridge-process.js';
import { commitOf } from '../harness/kube-meta.js';
import { pushImage } from '../harness/push-image.js';
import { startWorld, type World } from '../harness/world.js';
import { HEALTH_FAILED, OPT_IN, READY, pushAppImage, putDeployment, putKustomization } from '../e2e/scenario.js';
import { alertRules, asPromQL, dashboardQueries, selectorsOf } from './monitoring-manifests.js';
import { SCRAPE_JOB, startPrometheus, type RunningPrometheus } from './prometheus-server.js';

const WEB = commitOf('monitoring-web');
const GHOST = commitOf('monitoring-ghost');
const SHOP = commitOf('monitoring-shop');
const SHOP_FAILED = commitOf('monitoring-shop-failed');
const SHOP_FIXED = commitOf('monitoring-shop-fixed');
const REVISION = '5f1c0de';
/** Scrapes to wait for after the traffic, so every new series has several samples in a 1m window. */
const SCRAPES_AFTER = 4;
const WAIT_MS = 60_000;
/** The alerts whose expression holds right after the traffic: a bad signature within 10 minutes. */
const HOLDING = ['GdbWebhookSignatureFailures'];

/** Plays the traffic that makes every series the dashboard and the alerts read exist. */
async function traffic(t: Test, world: World, bridge: BridgeProcess): Promise<void> {
  const github = world.github;
  const forgejo = world.forgejo!;
  // GitHub: acme/web's first status meets a spent budget that resets in 12 s (a primary rate-limit pause). Not sooner:
  // on a loaded machine the first status can come seconds after this line, and a reset already past when the 403
  // arrives makes the bridge wait GitHub's one minute, longer than WAIT_MS (seen once in a clean-clone CI run).
  github.inject({ method: 'POST', path: /\/statuses$/, ...github.faults.primaryRateLimit(Math.ceil(Date.now() / 1000) + 12) });
  putDeployment(world, 'web', await pushAppImage(world, 'web', '1.0.0', WEB));
  putKustomization(world, 'web', ['web'], READY);
  // Forgejo: acme/shop's first status gets a 429 with Retry-After (a pause), then goes through.
  forgejo.inject({ method: 'POST', path: /\/statuses\//, status: 429, headers: { 'retry-after': '1' }, body: 'Too Many Requests' });
  const shop = (commit: string) => ({
    ...OPT_IN,
    'github-deployment-bridge.io/repository': `${forgejo.url}/acme/shop`,
    'github-deployment-bridge.io/commit': commit,
  });
  putDeployment(world, 'shop', 'registry.invalid/acme/shop:1', shop(SHOP));
  putKustomization(world, 'shop', ['shop'], READY);
  // A workload whose image names no repository (skipped), and one whose repository GitHub does not have (refused).
  await pushImage(world.registry!.url, 'acme/orphan', '1', { labels: {} });
  putDeployment(world, 'orphan', `${world.registry!.host}/acme/orphan:1`);
  putDeployment(world, 'ghost', 'registry.invalid/acme/ghost:1', {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': 'acme/ghost',
    'github-deployment-bridge.io/commit': GHOST,
  });
  putKustomization(world, 'misc', ['orphan', 'ghost'], READY);
  for (const name of ['web', 'shop', 'misc']) t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', name))).status, 202);
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'), { key: 'a Provider secret out of step' })).status, 401);

  await bridge.waitFor('GitHub success', () => github.deployments('acme', 'web')[0]?.statuses.some((s) => s.state === 'success'), WAIT_MS);
  await bridge.waitFor('Forgejo success', () => forgejo.statuses('acme', 'shop', SHOP).some((s) => s.state === 'success'), WAIT_MS);
  // DORA: shop's next commit fails its health check, the one after succeeds (a time to restore); each success's commit
  // time is read from Forgejo (a lead time).
  for (const [commit, conditions, generation, want] of [
    [SHOP_FAILED, HEALTH_FAILED, 2, 'failure'],
    [SHOP_FIXED, READY, 3, 'success'],
  ] as const) {
    putDeployment(world, 'shop', `registry.invalid/acme/shop:${generation}`, shop(commit));
    putKustomization(world, 'shop', ['shop'], conditions, generation);
    t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'shop'))).status, 202);
    await bridge.waitFor(`shop's ${want}`, () => forgejo.statuses('acme', 'shop', commit).some((s) => s.state === want), WAIT_MS);
  }
  await bridge.waitFor(
    'a DORA lead time and time to restore',
    async () =>
      /gdb_dora_lead_time_seconds_count\{/.test(await bridge.metrics()) &&
      /gdb_dora_time_to_restore_seconds_count\{/.test(await bridge.metrics()),
    WAIT_MS,
  );
  await bridge.waitFor(
    'both skips',
    async () => {
      const codes = (await bridge.state()).skipped.map((s) => s.code).sort();
      return codes.join() === 'github_not_found,no_repository';
    },
    WAIT_MS,
  );
  // The registry cache answers from memory on the next read of web's image.
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web'))).status, 202);
  await bridge.waitFor(
    'a registry cache hit',
    async () => /gdb_registry_cache_lookups_total\{[^}]*result="hit"\}/.test(await bridge.metrics()),
    WAIT_MS,
  );
}

/** Samples Prometheus has taken of the bridge so far. */
async function scrapes(prometheus: RunningPrometheus): Promise<number> {
  const [s] = await prometheus.query(`count_over_time(up{job="${SCRAPE_JOB}"}[10m])`);
  return Number(s?.value[1] ?? 0);
}

t.test('the dashboard and alert queries return series from a real Prometheus scraping the bridge', async (t) => {
  const world = await startWorld({
    registry: true,
    github: { repos: ['acme/web'] },
    forgejo: { repos: ['acme/shop'], commits: { 'acme/shop': [SHOP, SHOP_FAILED, SHOP_FIXED] } },
  });
  t.teardown(() => world.close());
  // staging counted as DORA's (the world's environment), so the DORA panels have series to read.
  const bridge = await world.bridge({ BUILD_REVISION: REVISION, DORA_ENVIRONMENTS: 'staging' });
  const prometheus = await startPrometheus({ targets: [new URL(bridge.url).host] });
  t.teardown(() => prometheus.close());
  t.comment(`Prometheus: ${prometheus.version}`);

  await bridge.waitFor(
    'Prometheus scraping the bridge',
    async () => (await prometheus.query(`up{job="${SCRAPE_JOB}"} == 1`)).length === 1,
    WAIT_MS,
  );
  await traffic(t, world, bridge);
  const after = (await scrapes(prometheus)) + SCRAPES_AFTER;
  await bridge.waitFor(`${SCRAPES_AFTER} scrapes after the traffic`, async () => (await scrapes(prometheus)) >= after, WAIT_MS);

  t.match(
    (await prometheus.query('gdb_build_info'))[0]?.metric,
    { version: /^\d+\.\d+\.\d+/, commit: REVISION, node: process.version },
    'gdb_build_info names the build',
  );

  for (const { name, expr } of dashboardQueries()) {
    const result = await prometheus.query(asPromQL(expr));
    t.ok(result.length > 0, `dashboard ${name}: ${expr} returns ${result.length} series`);
  }

  for (const rule of alertRules()) {
    const holds = await prometheus.query(rule.expr);
    t.equal(holds.length, HOLDING.includes(rule.alert) ? 1 : 0, `alert ${rule.alert}: ${rule.expr} evaluates to ${holds.length} series`);
    for (const selector of selectorsOf(rule.expr)) {
      const result = await prometheus.query(selector);
      t.ok(result.length > 0, `alert ${rule.alert}: ${selector} returns ${result.length} series`);
    }
  }

  const forges = async (q: string) => (await prometheus.query(q)).map((r) => r.metric.forge).sort();
  t.same(await forges('min by (forge) (gdb_forge_credentials_ok)'), ['forgejo', 'github'], 'one credentials series per forge');
  t.same(await forges('max by (forge) (gdb_forge_pauses_total)'), ['forgejo', 'github'], "both forges' pauses under one name");
  t.same(await prometheus.query('gdb_github_credentials_ok'), [], 'the check can fail: a renamed series returns none');
});
