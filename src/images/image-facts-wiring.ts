import type { Logger } from 'pino';
import { authFileKeyring } from './auth-file.js';
import { createImageFacts, createWarnOnce, type ImageFactsSource } from './image-facts.js';
import type { KubeReader } from '../kube/kube-types.js';
import type { Metrics } from '../common/metrics.js';
import { createCachedLabelSource } from '../oci/cached-label-source.js';
import type { Platform } from '../oci/platform.js';
import { createRegistryClient } from '../oci/registry-client.js';
import type { ImageCache } from '../store/image-cache.js';

/** The settings image facts are read with (`REGISTRY_*`; the configuration satisfies it). */
export interface ImageFactsSettings {
  registryInsecureHosts: readonly string[];
  registryAllowedHosts: readonly string[];
  registryPlatform: Platform;
  registryAuthFile?: string | undefined;
}

/** Image facts (running digests, OCI labels with the workload's credentials) as configured; shared by the server and `explain`. */
export function buildImageFacts(
  config: ImageFactsSettings,
  cache: ImageCache,
  kube: KubeReader,
  metrics: Metrics,
  log: Logger,
): ImageFactsSource {
  const registry = createRegistryClient({
    insecureHosts: config.registryInsecureHosts,
    allowedHosts: config.registryAllowedHosts,
    platform: config.registryPlatform,
    onResponse: (method, status) => metrics.registryHttp.inc({ method, status: String(status) }),
  });
  const labels = createCachedLabelSource(registry, cache, {
    onCache: (cache, hit) => metrics.registryCache.inc({ cache, result: hit ? 'hit' : 'miss' }),
  });
  const warnOnce = createWarnOnce(log.child({ component: 'image-facts' }));
  const authFile = config.registryAuthFile ? authFileKeyring(config.registryAuthFile, warnOnce) : () => [];
  return createImageFacts({ kube, labels, authFile, warnOnce });
}
