/**
 * Every status a forge accepts is counted once in `gdb_statuses_sent_total{forge,state}` (a publish, an
 * older commit superseded, a deployment ended at cleanup), in the neutral words /state uses; /state and
 * `gdb_deployments` name each row's state with the same word; each row links to its forge's page.
 * Each forge is assembled from its driver, as the server builds it, against its simulator.
 */
import t, { type Test } from 'tap';
import { pino } from 'pino';
import { createMetrics, type Metrics } from '../../src/common/metrics.js';
import type { Forge } from '../../src/forges/forge.js';
import { forgejoForge } from '../../src/forges/forgejo/forgejo-forge.js';
import { parseForgejoUrl } from '../../src/forges/forgejo/forgejo-url.js';
import { DEFAULT_CONTEXT_TEMPLATE, parseContextTemplate } from '../../src/forges/forgejo/status-context.js';
import { githubForge } from '../../src/forges/github/github-forge.js';
import { gitlabForge } from '../../src/forges/gitlab/gitlab-forge.js';
import { parseGitLabUrl } from '../../src/forges/gitlab/gitlab-url.js';
import { buildApp } from '../../src/http/http-app.js';
import { identityOf } from '../../src/lifecycle/identity.js';
import type { ReportTarget } from '../../src/metadata/resolve-target.js';
import { type Db } from '../../src/store/database.js';
import { DeploymentStore, type Origin } from '../../src/store/deployment-store.js';
import { QueueStore } from '../../src/store/queue-store.js';
import { RefusalStore } from '../../src/store/refusal-store.js';
import { SourceStore } from '../../src/store/source-store.js';
import { startForgejoSimulator } from '../harness/forgejo-sim.js';
import { startGitHubSimulator } from '../harness/github-sim.js';
import { startGitLabSimulator } from '../harness/gitlab-sim.js';
import { GITHUB_LIMITS } from './github-limits.js';
import { assembleForge } from '../../src/forges/assemble-forge.js';
import { openDatabase } from '../harness/database.js';

const TOKEN = 'statuses-sent-token';
const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);
const SHA_C = 'c'.repeat(40);
const log = pino({ level: 'silent' });

const target = (forge: string, owner: string, sha: string): ReportTarget => ({
  forge,
  owner,
  repo: 'web',
  environment: 'staging',
  sha,
  deploymentName: 'web',
  cluster: 'eu-1',
  description: 'Deployed by Flux',
  productionEnvironment: false,
  transientEnvironment: false,
  container: 'app',
  image: 'registry.example.com/acme/web:1',
  payload: { cluster: 'eu-1', deploymentName: 'web' },
  warnings: [],
});
const origin: Origin = {
  source: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
  workload: { kind: 'Deployment', namespace: 'apps', name: 'web' },
  container: 'app',
  image: 'registry.example.com/acme/web:1',
};

interface Rig {
  forge: Forge;
  owner: string;
  /** The statuses the simulator stored from the bridge, in neutral words, in order. */
  onForge(): string[];
  /** The forge's web page, as the row's link starts. */
  web: string;
}
type Deps = { db: Db; deployments: DeploymentStore; refusals: RefusalStore; metrics: Metrics };
type Build = (t: Test, d: Deps) => Promise<Rig>;

const GITHUB_WORDS: Record<string, string> = { inactive: 'gone', queued: 'pending' };
const GITLAB_WORDS: Record<string, string> = { running: 'in_progress', failed: 'failure', canceled: 'gone' };

const RIGS: Record<string, Build> = {
  async github(t, d) {
    const sim = await startGitHubSimulator({ tokens: [TOKEN], repos: ['acme/web'] });
    t.teardown(() => sim.close());
    const forge = assembleForge(
      githubForge,
      {
        githubHost: 'github.example.com',
        githubAuth: { kind: 'token', token: TOKEN },
        githubApiUrl: sim.url,
        githubWriteIntervalMs: 0,
        githubWriteBudget: GITHUB_LIMITS,
        // Publishes one after another: each look-up by itself (REST), not held for a batch.
        githubBatchedLookups: false,
      },
      { ...d, log, now: Date.now, userAgent: 'gdb-test', dryRun: false },
    )!;
    const onForge = () =>
      sim
        .deployments('acme', 'web')
        .reverse()
        .flatMap((dep) => dep.statuses.filter((s) => s.addedBy === 'client').map((s) => GITHUB_WORDS[s.state] ?? s.state));
    return { forge, owner: 'acme', onForge, web: 'https://github.example.com/acme/web/deployments/staging' };
  },
  async forgejo(t, d) {
    const sim = await startForgejoSimulator({ tokens: [TOKEN], repos: ['acme/web'] });
    t.teardown(() => sim.close());
    const url = parseForgejoUrl(sim.url);
    const template = parseContextTemplate(DEFAULT_CONTEXT_TEMPLATE);
    if ('problem' in url || 'problem' in template) throw new Error('bad Forgejo settings');
    const forge = assembleForge(
      forgejoForge,
      { forgejoUrl: url, forgejoToken: { kind: 'inline', value: TOKEN }, forgejoStatusContext: template },
      { ...d, log, now: Date.now, userAgent: 'gdb-test', dryRun: false },
    )!;
    const word = (s: { state: string; description: string }) =>
      s.state === 'pending' ? 'in_progress' : s.description.startsWith('Deployment gone') ? 'gone' : s.state;
    const onForge = () => [SHA_A, SHA_B, SHA_C].flatMap((sha) => sim.statuses('acme', 'web', sha).map(word));
    return { forge, owner: 'acme', onForge, web: `${url.webUrl}/acme/web/commit/` };
  },
  async gitlab(t, d) {
    const sim = await startGitLabSimulator({
      tokens: { [TOKEN]: 'deploy-bridge' },
      projects: [{ path: 'acme/team/web', defaultBranch: 'main', branches: { main: [SHA_A, SHA_B, SHA_C] } }],
    });
    t.teardown(() => sim.close());
    const url = parseGitLabUrl(sim.url);
    if ('problem' in url) throw new Error(url.problem);
    const forge = assembleForge(
      gitlabForge,
      { gitlabUrl: url, gitlabToken: { kind: 'inline', value: TOKEN } },
      { ...d, log, now: Date.now, userAgent: 'gdb-test', dryRun: false },
    )!;
    // Each create and update of a deployment's status is one status sent.
    const onForge = () =>
      sim
        .writes()
        .filter((w) => /\/deployments(\/\d+)?$/.test(w.path))
        .map((w) => {
          const status = String((w.body as { status?: string } | undefined)?.status);
          return GITLAB_WORDS[status] ?? status;
        });
    return { forge, owner: 'acme/team', onForge, web: `${url.webUrl}/acme/team/web/-/environments?search=staging` };
  },
};

/** The counter's samples, as `forge state count`. */
async function counted(metrics: Metrics): Promise<string[]> {
  const m = await metrics.statuses.get();
  return m.values.filter((v) => v.value > 0).map((v) => `${String(v.labels.forge)} ${String(v.labels.state)} ${v.value}`);
}

const tally = (forge: string, states: string[]) =>
  [...states.reduce((m, s) => m.set(s, (m.get(s) ?? 0) + 1), new Map<string, number>())].map(([s, n]) => `${forge} ${s} ${n}`);

for (const [name, build] of Object.entries(RIGS)) {
  t.test(`${name}: every status sent is counted once, superseded and retired ones included, in /state's words`, async (t) => {
    const db = openDatabase(':memory:');
    t.teardown(() => db.close());
    const deps = { db, deployments: new DeploymentStore(db), refusals: new RefusalStore(db), metrics: createMetrics() };
    const rig = await build(t, deps);
    t.teardown(() => rig.forge.stop());
    const a = target(name, rig.owner, SHA_A);
    const c = target(name, rig.owner, SHA_C);
    await rig.forge.publish(a, origin, 'in_progress', 'Progressing');
    await rig.forge.publish(a, origin, 'success', 'Rollout complete');
    // B live, as a catch-up: GitHub ends A (superseded); Forgejo and GitLab keep A as history.
    await rig.forge.publish(target(name, rig.owner, SHA_B), origin, 'success', 'Rollout complete');
    // The workload is gone while C rolls out: cleanup ends C.
    await rig.forge.publish(c, origin, 'in_progress', 'Progressing');
    const row = deps.deployments.get(identityOf(c));
    t.ok(row, 'C has its row');
    t.ok(await rig.forge.retire(row!, 'Deployment apps/web no longer exists'), 'cleanup wrote');

    const sent = rig.onForge();
    t.ok(sent.includes('gone'), `the forge holds an ending status: ${sent.join(', ')}`);
    t.equal(sent.filter((s) => s === 'gone').length, name === 'github' ? 2 : 1, 'superseded (GitHub) and retired');
    t.same((await counted(deps.metrics)).sort(), tally(name, sent).sort(), 'the counter matches what the forge stored');
    const { help } = await deps.metrics.statuses.get();
    for (const state of new Set(sent)) t.match(help, new RegExp(`\\b${state}\\b`), `its help names the label ${state}`);

    const app = await buildApp({
      webhookKey: Buffer.from('key'),
      queue: new QueueStore(db),
      deployments: deps.deployments,
      sources: new SourceStore(db),
      metrics: deps.metrics,
      log,
      now: Date.now,
      onEnqueued: () => undefined,
      isShuttingDown: () => false,
      readiness: () => ({ ready: true, reasons: [] }),
      activeReconciles: () => 0,
      forges: [rig.forge],
      refusals: deps.refusals,
    });
    t.teardown(() => app.close());
    const state = (await app.inject('/state')).json<{ deployments: Array<{ state: string; forgeState: string; url: string }> }>();
    const metrics = (await app.inject('/metrics')).body;
    const gauge = [...metrics.matchAll(/^gdb_deployments\{forge="([^"]+)",state="([^"]+)"\} (\d+)$/gm)].map(
      (m) => `${m[1]} ${m[2]} ${m[3]}`,
    );
    t.same(
      gauge.sort(),
      tally(
        name,
        state.deployments.map((d) => d.state),
      ).sort(),
      'gdb_deployments and /state use the same words for the same rows',
    );
    for (const d of state.deployments) {
      t.match(d.state, /^(pending|in_progress|success|failure|error|gone)$/, `a neutral state: ${d.state}`);
      t.ok(d.url.startsWith(rig.web), `links to the forge: ${d.url}`);
      t.ok(d.forgeState, `the forge's own word: ${d.forgeState}`);
    }
  });
}

t.test("gitlab: a closed preview's environment stop is counted as gone, once", async (t) => {
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const deps = { db, deployments: new DeploymentStore(db), refusals: new RefusalStore(db), metrics: createMetrics() };
  const rig = await RIGS.gitlab!(t, deps);
  t.teardown(() => rig.forge.stop());
  const preview = { ...target('gitlab', rig.owner, SHA_A), environment: 'preview-pr-7', transientEnvironment: true };
  await rig.forge.publish(preview, origin, 'success', 'Rollout complete');
  t.same(await counted(deps.metrics), ['gitlab success 1'], 'the live deployment');
  const row = deps.deployments.get(identityOf(preview));
  t.ok(await rig.forge.retire(row!, 'Deployment apps/web no longer exists'), 'cleanup stopped the environment');
  t.same(
    (await counted(deps.metrics)).sort(),
    ['gitlab gone 1', 'gitlab success 1'],
    'a finished deployment is not canceled; the stop counts',
  );
  t.notOk(await rig.forge.retire(row!, 'Deployment apps/web no longer exists'), 'nothing more to stop');
  t.same((await counted(deps.metrics)).sort(), ['gitlab gone 1', 'gitlab success 1'], 'counted once');
});
