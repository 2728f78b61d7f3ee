/**
 * One spoke's reads behind a gate: while the spoke does not answer (network, TLS, timeout, 5xx, 401), one
 * request at a time probes it and the others fail at once with the probe's error, and after a failure no
 * request goes before a backoff (1 s doubling to a minute). So a down spoke costs one failed request per
 * backoff, not one per workload or per Flux object. Every failure is a ClusterUnavailable naming the cluster.
 */
import { KubeError, errorMessage } from '../common/errors.js';
import type { KubeReader } from './kube-types.js';
import { wrapReader } from './wrap-reader.js';

/** First wait after a failure, doubled per failure in a row, up to the cap. */
export const SPOKE_BACKOFF_BASE_MS = 1_000;
export const SPOKE_BACKOFF_CAP_MS = 60_000;

/** Low-cardinality class of why a cluster cannot be read: the `reason` label of gdb_cluster_read_failures_total. */
export type ClusterFailure =
  'no_credentials' | 'kubeconfig_refused' | 'unsupported_provider' | 'unreachable' | 'timeout' | 'tls' | 'unauthorized' | 'server_error';

/** A remote cluster could not be read: never read the hub in its place. */
export class ClusterUnavailable extends KubeError {
  constructor(
    readonly cluster: string,
    readonly failure: ClusterFailure,
    message: string,
    status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, status, options);
  }
}

/** What a gate tells about its spoke. */
export interface GateEvents {
  answered(at: number): void;
  failed(failure: ClusterFailure, message: string): void;
}

/** The class of a failed read, or undefined when the spoke answered (a 404, a 403 on one kind: its RBAC, not an outage). */
export function failureOf(err: unknown): ClusterFailure | undefined {
  if (err instanceof ClusterUnavailable) return err.failure;
  if (!(err instanceof KubeError)) return undefined;
  const s = err.status;
  if (s === 401) return 'unauthorized';
  if (s !== undefined && s >= 500) return 'server_error';
  if (s !== undefined) return undefined;
  const text = `${err.message} ${errorMessage((err as { cause?: unknown }).cause)}`;
  if (/timed out/.test(text)) return 'timeout';
  if (/certificate|SSL|TLS|self[- ]signed|altnames/i.test(text)) return 'tls';
  return 'unreachable';
}

/** Wraps every read of `inner` (a spoke's reader) in the gate. */
export function gatedReader(cluster: string, inner: KubeReader, events: GateEvents, now: () => number): KubeReader {
  let up = false;
  let failures = 0;
  let downUntil = 0;
  let lastError: ClusterUnavailable | undefined;
  let probe: Promise<unknown> | undefined;

  const tagged = (err: KubeError, failure: ClusterFailure) =>
    err instanceof ClusterUnavailable
      ? err
      : new ClusterUnavailable(cluster, failure, `cluster ${cluster}: ${err.message}`, err.status, { cause: err });

  async function run<R>(read: () => Promise<R>): Promise<R> {
    while (!up && probe !== undefined) await probe.catch(() => undefined);
    if (!up && lastError !== undefined && now() < downUntil) throw lastError;
    const p = read();
    if (!up) probe = p;
    try {
      const r = await p;
      up = true;
      failures = 0;
      lastError = undefined;
      events.answered(now());
      return r;
    } catch (err) {
      const failure = failureOf(err);
      if (failure === undefined || !(err instanceof KubeError)) {
        // An answer (404 is the caller's null; a 403 on one kind is its RBAC): the spoke is there.
        up = true;
        events.answered(now());
        throw err;
      }
      up = false;
      failures++;
      downUntil = now() + Math.min(SPOKE_BACKOFF_CAP_MS, SPOKE_BACKOFF_BASE_MS * 2 ** Math.min(failures - 1, 20));
      lastError = tagged(err, failure);
      events.failed(failure, lastError.message);
      throw lastError;
    } finally {
      if (probe === p) probe = undefined;
    }
  }

  return wrapReader(
    inner,
    (read) =>
      (...args) =>
        run(() => read(...args)),
  );
}
