/**
 * Dependencies failing right now that do not make the bridge unready: webhook intake is durable and
 * the queue retries with backoff, so /readyz stays 200 (the Service keeps routing Flux's events) and
 * names them under `degraded`, as /state's `readiness` does.
 */
import type { Skip } from '../store/source-store.js';

/** Skip codes of a registry that gave no answer (the source is retried, unlike denied or not found). */
const REGISTRY_OUTAGE_CODES = new Set(['registry_unavailable', 'registry_timeout']);
/** Distinct registry reasons named in full; the rest are counted. */
const MAX_REGISTRY_REASONS = 3;

export interface DependencyFailures {
  /** The last Kubernetes API failure since it last answered, or null. */
  kube: string | null;
  /** Each forge's current failure (its ForgeHealth.outage()), if any. */
  forges: readonly string[];
  /** The current skips of workload containers. */
  skips: ReadonlyArray<Pick<Skip, 'code' | 'reason'>>;
}

/** One line per failing dependency, naming it and its last error. */
export function degradedDependencies(f: DependencyFailures): string[] {
  const out: string[] = [];
  if (f.kube !== null) out.push(`Kubernetes API failing: ${f.kube.replace(/^Kubernetes API: /, '')}`);
  out.push(...f.forges);
  const registry = f.skips.filter((s) => REGISTRY_OUTAGE_CODES.has(s.code));
  if (registry.length > 0) {
    const reasons = [...new Set(registry.map((s) => s.reason))];
    const more = reasons.length > MAX_REGISTRY_REASONS ? ` (+${reasons.length - MAX_REGISTRY_REASONS} more)` : '';
    out.push(`registry failing for ${registry.length} workload container(s): ${reasons.slice(0, MAX_REGISTRY_REASONS).join('; ')}${more}`);
  }
  return out;
}
