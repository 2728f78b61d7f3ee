/**
 * Image facts of a workload's containers: the digest its current pods run (from their
 * `containerStatuses[].imageID`) and, when annotations do not name repository and commit, the
 * image's OCI labels, read with the workload's own credentials (imagePullSecrets, then
 * REGISTRY_AUTH_FILE, then anonymous). Pods and Secrets are read lazily, at most once per
 * workload and reconcile, and Secrets only when the registry must actually be asked.
 */
import type { Logger } from 'pino';
import { KubeError, errorMessage } from '../common/errors.js';
import type { K8sObject, KubeReader, PodView } from '../kube/kube-types.js';
import type { ImageFacts } from '../metadata/resolve-target.js';
import { lookupCredentials, type Keyring } from '../oci/docker-config.js';
import type { RunningImage } from '../oci/image-id.js';
import { parseImageReference } from '../oci/reference.js';
import type { CredentialLookup, LabelSource } from '../oci/oci-types.js';
import { readPullSecrets, type WarnOnce } from './pull-secrets.js';
import { selectorString, type LabelSelector } from '../flux/label-selector.js';
import { runningImage } from './running-image.js';

/** Distinct warnings remembered before the memory is reset. */
const MAX_WARNINGS_REMEMBERED = 10_000;

export interface ImageFactsDeps {
  kube: KubeReader;
  labels: LabelSource;
  /** The REGISTRY_AUTH_FILE keyring (empty when not configured). */
  authFile: () => Keyring;
  /** Where missing RBAC, missing Secrets and unusable credentials are reported (see createWarnOnce). */
  warnOnce: WarnOnce;
}

/** The image facts of one workload's containers. */
export interface WorkloadImages {
  /**
   * The running digest (when pods report one) and, when `needLabels`, the registry labels; undefined
   * when neither is needed nor known. Throws RegistryError, or KubeError when the API fails.
   */
  facts(container: { name: string; image: string }, needLabels: boolean): Promise<ImageFacts | undefined>;
}

export interface ImageFactsSource {
  /** `kube` reads the pods and Secrets (the resync pass's listings, or fresh reads by default). */
  forWorkload(object: K8sObject, kube?: KubeReader): WorkloadImages;
}

/**
 * The reference to read labels from: the template's repository at the running digest when the pods
 * name the same repository (what runs, and cached for good), else the template's image.
 */
export function lookupReference(image: string, running: RunningImage | undefined): string {
  if (running?.repository === undefined) return image;
  const ref = parseImageReference(image);
  if (ref.registry !== running.registry || ref.repository !== running.repository) return image;
  return `${ref.registry}/${ref.repository}@${running.digest}`;
}

/** A WarnOnce that logs each distinct key once per process. */
export function createWarnOnce(log: Logger): WarnOnce {
  const warned = new Set<string>();
  return (key, fields, message) => {
    if (warned.has(key)) return;
    if (warned.size >= MAX_WARNINGS_REMEMBERED) warned.clear();
    warned.add(key);
    log.warn(fields, message);
  };
}

/** Builds the source. */
export function createImageFacts(deps: ImageFactsDeps): ImageFactsSource {
  const { warnOnce } = deps;
  return {
    forWorkload(object, kube = deps.kube) {
      const namespace = object.metadata.namespace ?? '';
      const podSpec = (object.spec?.template as { spec?: unknown } | undefined)?.spec;
      let pods: Promise<PodView[]> | undefined;
      let keyring: Promise<Keyring> | undefined;

      const currentPods = (): Promise<PodView[]> =>
        (pods ??= (async () => {
          const selector = object.spec?.selector;
          if (selectorString(selector) === undefined) return [];
          try {
            return await kube.listPods(namespace, selector as LabelSelector);
          } catch (err) {
            if (!(err instanceof KubeError && (err.status === 403 || err.status === 401))) throw err;
            warnOnce(
              `forbidden pods ${namespace}`,
              { namespace, error: errorMessage(err) },
              "cannot list pods (RBAC: list pods): the digest sent is the registry's, not the one the pods run",
            );
            return [];
          }
        })());

      const credentials: CredentialLookup = async (registry, repository) => {
        keyring ??= readPullSecrets(kube, warnOnce, namespace, podSpec);
        return lookupCredentials(await keyring, registry, repository) ?? lookupCredentials(deps.authFile(), registry, repository);
      };

      return {
        async facts(container, needLabels) {
          const running = runningImage(await currentPods(), container);
          if (!needLabels) return running === undefined ? undefined : { labels: {}, digest: running.digest };
          const meta = await deps.labels.imageMetadata(lookupReference(container.image, running), { credentials });
          return { labels: meta.labels, digest: running?.digest ?? meta.digest };
        },
      };
    },
  };
}
