import pino from 'pino';
import { logDestination } from '../common/log-destination.js';
import { buildImageFacts } from '../images/image-facts-wiring.js';
import { ConfigError, loadReportingConfig, type ReportingConfig } from '../config/load-config.js';
import { buildDefaults } from '../config/metadata-defaults.js';
import { DEFAULT_KUBE_TIMEOUT_MS, createKubeReader } from '../kube/kube-client.js';
import { SpokeClusters } from '../kube/spoke-clusters.js';
import { sourceCluster } from '../reconcile/source-cluster.js';
import { withRouteRefusals } from '../kube/route-refusals.js';
import type { SourceRef } from '../flux/k8s-objects.js';
import type { FluxKind } from '../kube/kube-types.js';
import { createMetrics } from '../common/metrics.js';
import { installProxy } from '../common/proxy.js';
import { resolveSource } from '../reconcile/resolve-source.js';
import { SCHEMA } from '../features/schema.js';
import { openDatabase } from '../store/database.js';
import { ImageCache } from '../store/image-cache.js';
import { controllerVersion } from '../common/version.js';
import { explainForgeHosts, explainForm } from '../forges/registry.js';
import { explainLines } from './explain-report.js';

const USAGE =
  'usage: github-deployment-bridge explain <Kustomization|HelmRelease>/<namespace>/<name> ' +
  '(kind in any case, plural, or short: ks, hr)';

/** `explain`'s exit statuses; `--help` and README.md ("Why is my workload not reported?") list them. */
export const EXPLAIN_EXIT = {
  /** The object was read and explained. */
  explained: 0,
  /** The cluster or a registry could not be read (no kubeconfig, API unreachable, denied). */
  failed: 1,
  /** A usage error or invalid settings, as for the server. */
  usage: 2,
  /** No such Flux object in the cluster. */
  notFound: 3,
} as const;

const HELP = `${USAGE}

Reads the Flux object as a reconcile would and prints, per workload and container, what would be
reported or exactly why not. Reads the cluster (KUBECONFIG, or in-cluster) and registries; writes
nothing. Settings are the server's environment variables (docs/configuration.md).

exit status: ${EXPLAIN_EXIT.explained} explained, ${EXPLAIN_EXIT.failed} the cluster or a registry could not be read, ${EXPLAIN_EXIT.usage} usage error or
invalid settings, ${EXPLAIN_EXIT.notFound} no such Flux object
`;
const HELP_ARGS: ReadonlySet<string> = new Set(['--help', '-h', 'help']);
/** Quieter than the server: only warnings, unless LOG_LEVEL is set. */
const EXPLAIN_LOG_LEVEL = 'warn';

/** The names kubectl and flux take for each Flux kind, lower-cased: singular, plural, short. */
const KIND_NAMES: ReadonlyMap<string, FluxKind> = new Map([
  ['kustomization', 'Kustomization'],
  ['kustomizations', 'Kustomization'],
  ['ks', 'Kustomization'],
  ['helmrelease', 'HelmRelease'],
  ['helmreleases', 'HelmRelease'],
  ['hr', 'HelmRelease'],
]);

/** Parses `kind/namespace/name`, the kind written any way kubectl takes it (`Kustomization`, `ks`, `HELMRELEASE`). */
export function parseSourceArg(arg: string | undefined): SourceRef | undefined {
  const [kindName = '', namespace, name, ...rest] = (arg ?? '').split('/');
  const kind = KIND_NAMES.get(kindName.toLowerCase());
  if (rest.length || !namespace || !name || !kind) return undefined;
  return { kind, namespace, name };
}

/**
 * `explain`: reads a Flux source as a reconcile would and prints, per workload and container, what would
 * be reported or exactly why not. Reads Kubernetes and registries; never writes to a forge or the cluster.
 * Reads only the settings that shape a report (`loadReportingConfig`): no webhook key, no forge credentials.
 */
export async function explainMain(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  if (args.length === 1 && HELP_ARGS.has(args[0] ?? '')) {
    process.stdout.write(HELP);
    return EXPLAIN_EXIT.explained;
  }
  const ref = args.length === 1 ? parseSourceArg(args[0]) : undefined;
  if (!ref) {
    process.stderr.write(`${USAGE}\n`);
    return EXPLAIN_EXIT.usage;
  }
  let config: ReportingConfig;
  try {
    config = loadReportingConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`github-deployment-bridge explain: ${err.message}\n`);
    return EXPLAIN_EXIT.usage;
  }
  const log = pino({ level: env.LOG_LEVEL?.trim() ? config.logLevel : EXPLAIN_LOG_LEVEL }, logDestination(2));
  // Registries are read through HTTPS_PROXY/NO_PROXY as the server reads them.
  await installProxy(env, log);
  const db = openDatabase(':memory:', SCHEMA);
  const spokes = new SpokeClusters({
    ...{ dir: config.clusterKubeconfigDir, tokenDir: config.clusterTokenDir, timeoutMs: DEFAULT_KUBE_TIMEOUT_MS, passIntervalMs: 0 },
    ...{ metrics: createMetrics(), log, now: Date.now },
  });
  try {
    const kube = withRouteRefusals(createKubeReader(config.kubeconfig ? { kubeconfigPath: config.kubeconfig } : {}), {
      now: Date.now,
      log,
    });
    const metrics = createMetrics();
    const deps = {
      kube,
      images: buildImageFacts(config, new ImageCache(db), kube, metrics, log),
      // No credentials are read here: a forge counts as configured when the environment configures it.
      defaults: buildDefaults(config, controllerVersion(), explainForgeHosts(config, env)),
      metrics,
    };
    const obj = await kube.getFluxObject(ref);
    // A remote Flux object (spec.kubeConfig): its workloads are read in its cluster, as the server reads them.
    const where = obj ? await sourceCluster({ ...deps, spokes }, obj) : null;
    const resolved = obj && where && !('unavailable' in where) ? await resolveSource({ ...deps, ...where }, ref, obj) : null;
    const cluster = where === null ? undefined : 'unavailable' in where ? { unavailable: where.unavailable.message } : where.remote;
    const report = explainLines(ref, obj, resolved, explainForm(config), cluster);
    process.stdout.write(`${report.lines.join('\n')}\n`);
    return report.found ? EXPLAIN_EXIT.explained : EXPLAIN_EXIT.notFound;
  } finally {
    spokes.stop();
    db.close();
  }
}
