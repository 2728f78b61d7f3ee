/**
 * The remote ("spoke") clusters of Flux objects with `.spec.kubeConfig`: for each, where its credentials come
 * from (a file of CLUSTER_KUBECONFIG_DIR named for the cluster, else Flux's own Secret, or for a `generic`
 * configMapRef the bridge's own projected token of CLUSTER_TOKEN_DIR: spoke-identity.ts; read again at each
 * reconcile so a rotated token is used at once), its reader (gated: spoke-gate.ts; with its own pass listings),
 * and whether it answers. A Flux object's workloads are read only through its spoke's reader, never the hub's.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { KubeError, errorMessage } from '../common/errors.js';
import type { Metrics } from '../common/metrics.js';
import { byText } from '../common/text.js';
import { kubeConfigRefOf, remoteClusterName } from '../flux/remote-cluster.js';
import { readerOver } from './kube-client.js';
import { kubeGetJson } from './kube-request.js';
import type { K8sObject, KubeReader } from './kube-types.js';
import { createPassListings, type PassListings } from './pass-listings.js';
import { withRouteRefusals } from './route-refusals.js';
import { ClusterUnavailable, gatedReader, type ClusterFailure } from './spoke-gate.js';
import { configMapIdentity } from './spoke-identity.js';
import { checkSpokeKubeconfig, type SpokeCredentials } from './spoke-kubeconfig.js';
import { spokeTransport, type SpokeTransport } from './spoke-request.js';
import { healthOfWatches } from './spoke-watch.js';
import { watchTransportOver, type WatchTransport } from './watch-stream.js';

/** Suffixes tried after the bare cluster name in CLUSTER_KUBECONFIG_DIR, in order. */
export const KUBECONFIG_FILE_SUFFIXES = ['', '.yaml', '.kubeconfig'];
/** Cluster names looked up as file names: no path separators, no leading dot. */
const FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** One spoke as /state and the status page show it. */
export interface ClusterState {
  name: string;
  local: boolean;
  /** The last read answered (null: not asked yet). */
  answers: boolean | null;
  lastAnswerAt: number | null;
  /** Why it does not answer (null while it does). */
  reason: string | null;
  /** Where its credentials come from: `Secret <ns>/<name> key <k>`, `file <path>`, or none. */
  credentials: string | null;
}

/** How a Flux object's workloads are read. */
export type SpokeResolution =
  | { local: true }
  | { cluster: string; credentials: string; fresh: KubeReader; pass: KubeReader; watch: WatchTransport }
  | { cluster: string; credentials: string | null; unavailable: ClusterUnavailable };

export interface SpokeClustersOptions {
  /** CLUSTER_KUBECONFIG_DIR (unset: Flux's Secrets only). */
  dir?: string | undefined;
  /** CLUSTER_TOKEN_DIR: projected tokens of the bridge's ServiceAccount, for `generic` workload identity (unset: none). */
  tokenDir?: string | undefined;
  timeoutMs: number;
  passIntervalMs: number;
  metrics: Pick<Metrics, 'clusterUp' | 'clusterReadFailures' | 'clusterLastAnswer'>;
  log: Logger;
  now: () => number;
}

interface Entry {
  fingerprint: string;
  transport: SpokeTransport;
  fresh: KubeReader;
  listings: PassListings;
  /** Lists and watches of rollouts in the spoke, over its own transport (a new object when credentials change). */
  watch: WatchTransport;
}

/** The spokes the bridge knows, by cluster name. */
export class SpokeClusters {
  private readonly entries = new Map<string, Entry>();
  private readonly states = new Map<string, ClusterState>();
  private readonly warned = new Set<string>();

  constructor(private readonly o: SpokeClustersOptions) {}

  /** Local (no spec.kubeConfig), the spoke's readers, or why it cannot be read (counted, in /state). */
  async resolve(obj: K8sObject, hub: Pick<KubeReader, 'getSecret' | 'getConfigMap'>): Promise<SpokeResolution> {
    const ref = kubeConfigRefOf(obj);
    if (ref === undefined) return { local: true };
    const namespace = obj.metadata.namespace ?? '';
    const cluster = ref.kind === 'invalid' ? `${namespace}/${obj.metadata.name}` : remoteClusterName(obj, ref);
    const state = this.stateOf(cluster);
    const fail = (failure: ClusterFailure, why: string, credentials: string | null) => {
      const unavailable = new ClusterUnavailable(cluster, failure, `cluster ${cluster}: ${why}`);
      this.failed(cluster, failure, unavailable.message);
      state.credentials = credentials;
      return { cluster, credentials, unavailable };
    };
    if (ref.kind === 'invalid') return fail('no_credentials', ref.reason, null);
    const file = this.fileFor(cluster);
    let text: string;
    let credentials: string;
    if (file !== undefined) {
      credentials = `file ${file.path}`;
      text = file.text;
    } else if (ref.kind === 'configMap') {
      const id = await configMapIdentity(hub, { namespace, name: ref.name, cluster }, this.o.tokenDir);
      if ('failure' in id) return fail(id.failure, id.why, id.source);
      credentials = id.source;
      text = JSON.stringify(id.credentials);
    } else {
      credentials = `Secret ${namespace}/${ref.name}`;
      const read = await this.secretText(hub, namespace, ref.name, ref.key, cluster);
      if ('missing' in read) return fail('no_credentials', read.missing, credentials);
      credentials = `${credentials} key ${read.key}`;
      text = read.text;
    }
    state.credentials = credentials;
    const entry = this.entryFor(cluster, text, ref.kind === 'configMap' && file === undefined);
    if ('refused' in entry) return fail('kubeconfig_refused', `${credentials}: ${entry.refused}`, credentials);
    return { cluster, credentials, fresh: entry.fresh, pass: entry.listings.reader, watch: entry.watch };
  }

  /** A resync pass starts: every spoke's listings are read again. */
  beginPass(): void {
    for (const e of this.entries.values()) e.listings.begin();
  }

  /** Every spoke met so far. */
  snapshot(): ClusterState[] {
    return [...this.states.values()].map((s) => ({ ...s })).sort((a, b) => byText(a.name, b.name));
  }

  /** Drops every kept connection (shutdown). */
  stop(): void {
    for (const e of this.entries.values()) e.transport.close();
    this.entries.clear();
  }

  private stateOf(cluster: string): ClusterState {
    let s = this.states.get(cluster);
    if (!s) {
      s = { name: cluster, local: false, answers: null, lastAnswerAt: null, reason: null, credentials: null };
      this.states.set(cluster, s);
    }
    return s;
  }

  private failed(cluster: string, failure: ClusterFailure, message: string): void {
    const s = this.stateOf(cluster);
    this.o.metrics.clusterReadFailures.inc({ cluster, reason: failure });
    this.o.metrics.clusterUp.set({ cluster }, 0);
    if (s.reason !== message) this.o.log.warn({ cluster, reason: failure, err: message }, 'remote cluster cannot be read');
    s.answers = false;
    s.reason = message;
  }

  private answered(cluster: string, at: number): void {
    const s = this.stateOf(cluster);
    if (s.answers === false) this.o.log.info({ cluster }, 'remote cluster answers again');
    s.answers = true;
    s.lastAnswerAt = at;
    s.reason = null;
    this.o.metrics.clusterUp.set({ cluster }, 1);
    this.o.metrics.clusterLastAnswer.set({ cluster }, Math.floor(at / 1000));
  }

  /** The cluster's file in CLUSTER_KUBECONFIG_DIR, read now (a mounted Secret's file changes in place). */
  private fileFor(cluster: string): { path: string; text: string } | undefined {
    if (this.o.dir === undefined || !FILE_NAME.test(cluster)) return undefined;
    for (const suffix of KUBECONFIG_FILE_SUFFIXES) {
      const path = join(this.o.dir, cluster + suffix);
      try {
        return { path, text: readFileSync(path, 'utf8') };
      } catch {
        /* not there: the next suffix */
      }
    }
    return undefined;
  }

  /** The kubeconfig of Flux's Secret: key `key`, else `value`, else `value.yaml` (Flux's order). */
  private async secretText(
    hub: Pick<KubeReader, 'getSecret'>,
    namespace: string,
    name: string,
    key: string | undefined,
    cluster: string,
  ): Promise<{ text: string; key: string } | { missing: string }> {
    let secret;
    try {
      secret = await hub.getSecret(namespace, name);
    } catch (err) {
      if (!(err instanceof KubeError && (err.status === 403 || err.status === 401))) throw err;
      return {
        missing: `cannot read Secret ${namespace}/${name} (${errorMessage(err)}): grant get on it (the optional fleet component), or put a kubeconfig for ${cluster} in CLUSTER_KUBECONFIG_DIR`,
      };
    }
    if (secret === null) return { missing: `Secret ${namespace}/${name} not found` };
    const keys = key !== undefined ? [key] : ['value', 'value.yaml'];
    const found = keys.find((k) => (secret.data[k] ?? '') !== '');
    if (found === undefined) return { missing: `Secret ${namespace}/${name} has no key ${keys.join(' or ')}` };
    return { text: Buffer.from(secret.data[found] ?? '', 'base64').toString('utf8'), key: found };
  }

  /**
   * The cluster's readers for this kubeconfig text (or, `built`, the JSON of credentials already checked:
   * spoke-identity.ts): kept while the text stays the same, rebuilt when it changes.
   */
  private entryFor(cluster: string, text: string, built = false): Entry | { refused: string } {
    const fingerprint = createHash('sha256').update(text).digest('hex');
    const kept = this.entries.get(cluster);
    if (kept?.fingerprint === fingerprint) return kept;
    const checked = built ? { credentials: JSON.parse(text) as SpokeCredentials } : checkSpokeKubeconfig(text);
    if ('refused' in checked) return checked;
    const c = checked.credentials;
    if (c.insecureSkipTlsVerify && !this.warned.has(cluster)) {
      this.warned.add(cluster);
      this.o.log.warn(
        { cluster, server: c.server },
        "remote cluster's kubeconfig sets insecure-skip-tls-verify: its server is not verified",
      );
    }
    if (kept) {
      kept.transport.close();
      this.o.log.info({ cluster }, "remote cluster's credentials changed: using the new ones");
    }
    const transport = spokeTransport(c);
    const log = this.o.log.child({ cluster });
    const health = {
      answered: (at: number) => this.answered(cluster, at),
      failed: (f: ClusterFailure, m: string) => this.failed(cluster, f, m),
    };
    const gated = gatedReader(cluster, readerOver(kubeGetJson(transport.get, this.o.timeoutMs)), health, this.o.now);
    const fresh = withRouteRefusals(gated, { now: this.o.now, log });
    const listings = createPassListings(fresh, { now: this.o.now, passIntervalMs: this.o.passIntervalMs });
    const watch = healthOfWatches(cluster, watchTransportOver(transport.get), health, this.o.now);
    const entry: Entry = { fingerprint, transport, fresh, listings, watch };
    this.entries.set(cluster, entry);
    return entry;
  }
}
