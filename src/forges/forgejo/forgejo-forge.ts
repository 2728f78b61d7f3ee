/**
 * Forgejo (and Gitea) as a forge: one commit status per (environment, deployment name, cluster) on the
 * commit. Builds its client, health and credential check (`createForgejoSide`), its publisher behind its
 * refusal guard, its dry run, and its parts of /state, /metrics and routing.
 */
import { secretValue, type RotatingSecret } from '../../common/rotating-secret.js';
import type { Forge, ForgeFactory } from '../forge.js';
import { explainCommit, laneOf, repoWebPath } from '../forge.js';
import { forgeGauges, statusCounter } from '../forge-metrics.js';
import { forgeHealthState } from '../forge-state.js';
import { placeOf } from '../forge-url.js';
import { GuardedPublisher } from '../refusal-guard.js';
import { forgejoWordOf } from './commit-status-plan.js';
import { CommitStatusRows } from './commit-status-rows.js';
import { CommitStatusPublisher } from './commit-status-publisher.js';
import { forgejoDryRunPort } from './forgejo-dry-run.js';
import { ForgejoPublisher } from './forgejo-publisher.js';
import { forgejoRefusalOf } from './forgejo-refusal.js';
import { createForgejoSide } from './forgejo-side.js';
import type { ForgejoLocation } from './forgejo-url.js';
import { statusContext, type ContextTemplate } from './status-context.js';
import type { ReportTarget } from '../../metadata/resolve-target.js';

/** A target's status context under the template. */
const contextOf = (template: ContextTemplate, t: ReportTarget): string =>
  statusContext(template, { environment: t.environment, deploymentName: t.task, cluster: t.cluster });

/** How the Forgejo token is read: inline, or from a file read again before each request (a rotated Secret is picked up). */
export type ForgejoToken = RotatingSecret;

/** What routing to Forgejo and naming its contexts need (`explain` too). */
export interface ForgejoReporting {
  /** Unset: Forgejo is not configured. */
  forgejoUrl?: ForgejoLocation | undefined;
  forgejoStatusContext: ContextTemplate;
}

/** The settings Forgejo is built from (`FORGEJO_*`, see config/forgejo-config.ts). */
export interface ForgejoSettings extends ForgejoReporting {
  forgejoToken?: ForgejoToken | undefined;
}

export const forgejoForge: ForgeFactory<ForgejoSettings, ForgejoReporting> = {
  name: 'forgejo',
  reports: 'Forgejo/Gitea commit statuses',
  host: (s) => (s.forgejoUrl === undefined ? undefined : { forge: 'forgejo', ...placeOf(s.forgejoUrl.webUrl), setting: 'FORGEJO_URL' }),
  configuredIn: (env) => Boolean(env.FORGEJO_URL?.trim()),
  explain: (s, t) => ({
    where: `Forgejo ${explainCommit(t)} commit status "${contextOf(s.forgejoStatusContext, t)}"`,
    urlField: 'target_url',
  }),
  build(s, d): Forge | undefined {
    if (s.forgejoUrl === undefined || s.forgejoToken === undefined) return undefined;
    const { deployments, refusals, log, now } = d;
    const side = createForgejoSide({
      location: s.forgejoUrl,
      token: secretValue(s.forgejoToken),
      userAgent: d.userAgent,
      metrics: d.metrics,
      log: log.child({ component: 'forgejo' }),
      now,
    });
    const statuses = new CommitStatusPublisher({
      forge: d.dryRun ? forgejoDryRunPort(side.port, log) : side.port,
      store: new CommitStatusRows(d.db),
      log,
      now,
      onSent: statusCounter(d, 'forgejo'),
    });
    const plain = new ForgejoPublisher({ statuses, deployments, template: s.forgejoStatusContext, log, now });
    const guarded = new GuardedPublisher({
      publisher: plain,
      refusals,
      deployments,
      classify: forgejoRefusalOf,
      forge: 'Forgejo',
      log,
      now,
    });
    const health = side.health;
    const url = s.forgejoUrl.webUrl;
    return {
      name: 'forgejo',
      title: 'Forgejo',
      health,
      ...laneOf(guarded, plain, (r) => ({ sent: r.sent, superseded: 0 })),
      comments: side.comments,
      commits: side.commits,
      start: () => side.monitor.start(),
      stop: () => side.monitor.stop(),
      state: () => ({ url, ...forgeHealthState(health, refusals, 'forgejo', now()) }),
      // A context that ended says `gone` (Forgejo has no inactive state); its link: the commit with its statuses.
      describe: (row) => ({
        context: row.context,
        forgeState: row.state === null ? 'provisional' : forgejoWordOf(row.state),
        url: `${url}/${repoWebPath(row)}/commit/${encodeURIComponent(row.sha)}`,
      }),
      scrape: forgeGauges(d.metrics, 'forgejo', health),
      summary: { url },
    };
  },
};
