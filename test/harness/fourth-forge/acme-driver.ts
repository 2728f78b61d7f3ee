/**
 * The fourth forge's driver, and all of it: its settings, where it lives, how `explain` names a target, its connect
 * step (a token forge's health and credential check from `token-side.ts`, its publisher over its port, its refusal
 * classifier, its dry run, its words). The registry takes it as one more array entry.
 */
import { REFUSAL_RETRY_MS, refusalKeys, type Refusal } from '../../../src/lifecycle/refusal.js';
import { ForgeError, isForgeRetryable } from '../../../src/common/errors.js';
import { rotatingSecret, type RotatingSecret } from '../../../src/common/rotating-secret.js';
import { setting, type Parse } from '../../../src/common/settings-schema.js';
import { explainCommit } from '../../../src/forges/forge.js';
import type { ForgeConnection, ForgeDriver } from '../../../src/forges/forge-driver.js';
import { placeOf } from '../../../src/forges/forge-url.js';
import { tokenSide } from '../../../src/forges/token-side.js';
import type { DeliveryState } from '../../../src/lifecycle/status-plan.js';
import type { DeploymentStore } from '../../../src/store/deployment-store.js';
import { AcmeForge, type AcmePort } from './acme-client.js';

export interface AcmeSettings {
  acmeUrl?: string | undefined;
  acmeToken?: RotatingSecret | undefined;
}

const acmeUrl: Parse<string> = (value, check) => (/^https?:\/\/[^/]+$/.test(value) ? value : check.invalid('is not a web base URL'));
export const ACME_REPORTING = { acmeUrl: setting('ACME_URL', { parse: acmeUrl, doc: 'web base URL of an Acme Deploy server' }) };
export const ACME_SERVICE = { acmeToken: rotatingSecret('ACME_TOKEN', { shown: 'with `ACME_URL`', doc: 'Acme Deploy token' }) };

/** The one Acme forge the tests talk to (a real driver would build its HTTP client from the settings). */
export const acmeServer = new AcmeForge();

/** Publishes one status per (commit, environment) crash-safely through the deployments store: a pending mark, the write, the state. */
function acmePublisher(port: AcmePort, deployments: DeploymentStore, now: () => number, onSent: (s: DeliveryState) => void) {
  const keyOf = (r: { owner: string; repo: string; sha: string; environment: string }) => ({ ...r });
  const send = async (id: Parameters<DeploymentStore['get']>[0], state: DeliveryState, description: string) => {
    deployments.setPending(id, state, now());
    await port.setStatus(keyOf(id), state);
    deployments.setState(id, state, description, now());
    onSent(state);
  };
  return {
    async publish(
      target: Parameters<DeploymentStore['get']>[0],
      origin: Parameters<DeploymentStore['insertProvisional']>[1],
      desired: DeliveryState,
      description: string,
    ) {
      const row = deployments.insertProvisional(target, origin, now());
      if (row.state === desired) return { sent: [] as string[] };
      // After a crash between the mark and the state, the forge is asked what it shows.
      if (row.pendingState !== null && (await port.status(keyOf(target))) === desired) {
        deployments.setState(target, desired, description, now());
        return { sent: [] as string[] };
      }
      await send(target, desired, description);
      return { sent: [desired] };
    },
    async retire(row: Parameters<DeploymentStore['get']>[0] & { state: DeliveryState | null }, description: string) {
      if (row.state === 'gone') return false;
      await send(row, 'gone', description);
      return true;
    },
  };
}

function acmeRefusalOf(err: unknown, t: Parameters<typeof refusalKeys>[0], now: number): Refusal | undefined {
  if (!(err instanceof ForgeError) || isForgeRetryable(err) || err.status === undefined) return undefined;
  const reason = `Acme refused ${t.owner}/${t.repo} (${err.status})`;
  return { forge: 'acme', key: refusalKeys(t).repo, code: 'acme_refused', reason, status: err.status, retryAt: now + REFUSAL_RETRY_MS };
}

export const acmeForge: ForgeDriver<AcmeSettings, AcmeSettings, typeof ACME_REPORTING, typeof ACME_SERVICE> = {
  name: 'acme',
  title: 'Acme',
  reports: 'Acme Deploy statuses',
  settings: { reporting: ACME_REPORTING, service: ACME_SERVICE },
  configuredBy: ['ACME_URL', 'ACME_TOKEN', 'ACME_TOKEN_FILE'],
  howToConfigure: 'Acme (ACME_URL with ACME_TOKEN)',
  host: (s) => (s.acmeUrl === undefined ? undefined : { forge: 'acme', ...placeOf(s.acmeUrl), setting: 'ACME_URL' }),
  configuredIn: (env) => Boolean(env.ACME_URL?.trim()),
  explain: (_s, t) => ({ where: `Acme ${explainCommit(t)} status ${t.environment}`, urlField: 'link' }),
  url: (s) => (s.acmeUrl ? { setting: 'ACME_URL', url: s.acmeUrl } : undefined),
  connect(s, d): ForgeConnection<AcmePort, { sent: string[] }> | undefined {
    if (s.acmeUrl === undefined || s.acmeToken === undefined) return undefined;
    const { health, monitor, gated } = tokenSide({
      forge: 'acme',
      title: 'Acme',
      metrics: d.metrics,
      log: d.log,
      now: d.now,
      check: () => acmeServer.whoami(),
      waitWords: 'Acme asked to wait',
    });
    const port: AcmePort = {
      status: (k) => gated(() => acmeServer.status(k)),
      setStatus: (k, state) => gated(() => acmeServer.setStatus(k, state)),
    };
    const url = s.acmeUrl;
    return {
      health,
      monitor,
      port,
      dryRun: (inner, log) => ({
        status: (k) => inner.status(k),
        setStatus: (k, state) => {
          log.info({ ...k, state }, 'DRY_RUN: would send');
          return Promise.resolve();
        },
      }),
      publisher: (p, onSent) => acmePublisher(p, d.deployments, d.now, onSent),
      count: (r) => ({ sent: r.sent, superseded: 0 }),
      refusal: { classify: acmeRefusalOf },
      describe: (row) => ({ forgeState: row.state ?? 'provisional', url: `${url}/${row.owner}/${row.repo}/commit/${row.sha}` }),
      stateHead: { url },
      summary: { url },
    };
  },
};
