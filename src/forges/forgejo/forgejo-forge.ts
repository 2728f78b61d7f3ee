/**
 * Forgejo (and Gitea) as a forge: one commit status per (environment, deployment name, cluster) on the
 * commit. Its driver: its settings, routing, its client, health and credential check (`createForgejoSide`), its
 * publisher, refusal classifier and dry run, and its words for a row.
 */
import type { RotatingSecret } from '../../common/rotating-secret.js';
import { explainCommit, repoWebPath } from '../forge.js';
import type { ForgeConnection, ForgeDriver } from '../forge-driver.js';
import { placedByUrl } from '../forge-url.js';
import { tokenForgeOptions } from '../token-side.js';
import { forgejoWordOf } from './commit-status-plan.js';
import { CommitStatusRows } from './commit-status-rows.js';
import { CommitStatusPublisher } from './commit-status-publisher.js';
import { forgejoDryRunPort } from './forgejo-dry-run.js';
import { ForgejoPublisher, type ForgejoPublishResult } from './forgejo-publisher.js';
import { FORGEJO_REPORTING, FORGEJO_SERVICE } from './forgejo-settings.js';
import type { CommitStatusPort } from './forgejo-types.js';
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

export const forgejoForge: ForgeDriver<ForgejoSettings, ForgejoReporting, typeof FORGEJO_REPORTING, typeof FORGEJO_SERVICE> = {
  name: 'forgejo',
  title: 'Forgejo',
  reports: 'Forgejo/Gitea commit statuses',
  settings: { reporting: FORGEJO_REPORTING, service: FORGEJO_SERVICE },
  ...placedByUrl<ForgejoReporting>({
    forge: 'forgejo',
    urlSetting: 'FORGEJO_URL',
    tokenSetting: 'FORGEJO_TOKEN',
    location: (s) => s.forgejoUrl,
  }),
  howToConfigure: 'Forgejo or Gitea (FORGEJO_URL with FORGEJO_TOKEN)',
  explain: (s, t) => ({
    where: `Forgejo ${explainCommit(t)} commit status "${contextOf(s.forgejoStatusContext, t)}"`,
    urlField: 'target_url',
  }),
  connect(s, d): ForgeConnection<CommitStatusPort, ForgejoPublishResult> | undefined {
    if (s.forgejoUrl === undefined || s.forgejoToken === undefined) return undefined;
    const { deployments, log, now } = d;
    const side = createForgejoSide(tokenForgeOptions(d, 'forgejo', s.forgejoUrl, s.forgejoToken));
    const url = s.forgejoUrl.webUrl;
    let statuses: CommitStatusPublisher | undefined;
    return {
      ...side,
      dryRun: forgejoDryRunPort,
      publisher(forge, onSent) {
        statuses = new CommitStatusPublisher({ forge, store: new CommitStatusRows(deployments), log, now, onSent });
        return new ForgejoPublisher({ statuses, deployments, template: s.forgejoStatusContext, log, now });
      },
      count: (r) => ({ sent: r.sent, superseded: 0 }),
      refusal: { classify: forgejoRefusalOf },
      // A context that ended says `gone` (Forgejo has no inactive state); its link: the commit with its statuses.
      describe: (row) => ({
        context: row.context,
        forgeState: row.state === null ? 'provisional' : forgejoWordOf(row.state),
        url: `${url}/${repoWebPath(row)}/commit/${encodeURIComponent(row.sha)}`,
      }),
      stateHead: { url },
      // For /state: the shared reads of commits' statuses (sent, look-ups they answered besides, look-ups read alone).
      own: () => (statuses ? { sharedReads: statuses.reads.counts() } : {}),
      summary: { url },
    };
  },
};
