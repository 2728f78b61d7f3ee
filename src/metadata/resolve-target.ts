import { boundedValue, boundedValues, oneLine, quoted, wasCut } from '../common/text.js';
import type { K8sObject, SourceRef } from '../flux/k8s-objects.js';
import { parseCommit, parseRepository } from './repository.js';
import { isTransient } from './patterns.js';
import { expandUrl } from './url-template.js';
import { escapeTemplateValues } from './url-escape.js';
import type { RouteScheme } from './route-url.js';
import type { Identity } from '../lifecycle/identity.js';
import { routeRepository, type ForgeHost } from './forge-route.js';
import { pickRepository, repositoryAllowed, type RepositoryPattern, type RepositorySource } from './repository-trust.js';
import { FLUX_BRANCH_ANNOTATION, REF_KEY, TIER_KEY, targetRef, targetTier, type TargetRef, type Tier } from './ref-tier.js';

/** Prefix of every annotation the bridge reads. */
export const ANNOTATION_PREFIX = 'github-deployment-bridge.io/';
export const LABEL_SOURCE = 'org.opencontainers.image.source';
export const LABEL_REVISION = 'org.opencontainers.image.revision';
export const LABEL_VERSION = 'org.opencontainers.image.version';

/** Controller-wide defaults, from configuration. */
export interface Defaults {
  cluster: string;
  /** The remote cluster of a Flux object with spec.kubeConfig (its deployments are its own: Identity.spoke); unset: the bridge's own. */
  spoke?: string;
  environment?: string;
  environmentUrl?: string;
  /** `ENVIRONMENT_URL_SCHEME`: the scheme of URLs discovered from HTTPRoutes (default https). */
  routeScheme?: RouteScheme;
  logUrlTemplate?: string;
  description: string;
  /** Where each configured forge lives, in the registry's order: a repository URL's host picks its forge. */
  forges: readonly ForgeHost[];
  controllerVersion: string;
  /** `REPOSITORY_SOURCE`: `annotation` ignores the image's source label (default `any`). */
  repositorySource?: RepositorySource;
  /** `ALLOWED_REPOSITORIES`: targets outside are skipped, never written (empty: all allowed). */
  allowedRepositories?: readonly RepositoryPattern[];
  /** `TRANSIENT_ENVIRONMENTS`: environment patterns (`pr-*`) whose deployments are transient. */
  transientEnvironments?: readonly string[];
  /** `LOG_URL_TEMPLATE_ESCAPE`: percent-encode values expanded into URL templates. */
  escapeUrlValues?: boolean;
}

/** A workload after its annotations are merged (workload wins over pod template). */
export interface WorkloadInfo {
  kind: string;
  namespace: string;
  name: string;
  annotations: Record<string, string>;
  containers: Array<{ name: string; image: string }>;
  /** The URL discovered from a route to the workload's pods: used when `environment-url` is not annotated. */
  routeUrl?: string;
}

/** What the registry said about a container image, when it was asked. */
export interface ImageFacts {
  labels: Record<string, string>;
  digest?: string;
}

/** The Flux object a workload came from, and its annotations (for `event.toolkit.fluxcd.io/branch`). */
export interface SourceInfo extends SourceRef {
  annotations?: Readonly<Record<string, string>>;
}

/** Everything needed to create and update one deployment (or, on a forge of commit statuses, one status context). */
export interface ReportTarget extends Identity {
  /** Where it is reported (`forge`): decided by the repository's host (`routeRepository`). */
  /** The cluster the workload runs in (`cluster` annotation, else `CLUSTER_NAME`): part of a status context. */
  cluster: string;
  /** Sent as the deployment `task` only when `deployment-name` is annotated. */
  task?: string;
  description: string;
  productionEnvironment: boolean;
  /** A preview: its forge may show it as destroyed once it is gone. */
  transientEnvironment: boolean;
  environmentUrl?: string;
  logUrl?: string;
  /** The branch or tag it was built from (`ref` annotation, else the Flux object's branch); a forge needing one and lacking it asks its API. */
  ref?: TargetRef;
  /** The environment tier (`production` for a production environment, else the `tier` annotation); forges without tiers ignore it. */
  tier?: Tier;
  container: string;
  image: string;
  payload: Record<string, unknown>;
  /** Problems that dropped an optional field (for example a bad URL template); logged, never blocking. */
  warnings: string[];
}

/** Longest deployment description sent, in characters (the shortest forge limit on a status description). */
const MAX_DEPLOYMENT_DESCRIPTION_CHARS = 140;

/** Low-cardinality class of a skip reason, for metrics. */
export type SkipCode = 'no_repository' | 'bad_repository' | 'repository_not_allowed' | 'no_commit' | 'bad_commit' | 'no_environment';

export type Resolution = { target: ReportTarget } | { skip: string; code: SkipCode };

const EXTRAS: Record<string, string> = {
  team: 'team',
  service: 'service',
  component: 'component',
  'slack-channel': 'slackChannel',
  owner: 'owner',
  release: 'release',
  tag: 'tag',
};

const nonBlank = (a: Record<string, string>) =>
  Object.fromEntries(Object.entries(a).filter(([, v]) => typeof v === 'string' && v.trim() !== ''));

/** The bridge's annotations of a workload; the pod template's fill in keys the workload lacks. */
export function bridgeAnnotations(workload: K8sObject): Record<string, string> {
  // A pod template's metadata is optional, unlike an object's.
  const template =
    (workload.spec?.template as { metadata?: { annotations?: Record<string, string> } } | undefined)?.metadata?.annotations ?? {};
  const own = workload.metadata.annotations ?? {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...template, ...nonBlank(own) })) {
    // A blank value (a Helm chart rendering an unset value as "") counts as absent; a long one is cut here, where it is read.
    if (k.startsWith(ANNOTATION_PREFIX) && typeof v === 'string' && v.trim() !== '') {
      out[k.slice(ANNOTATION_PREFIX.length)] = boundedValue(v.trim());
    }
  }
  return out;
}

/** Opt-in: only workloads annotated `auto-report: "true"` are reported. */
export function isOptedIn(annotations: Record<string, string>): boolean {
  return annotations['auto-report']?.trim().toLowerCase() === 'true';
}

/** The containers that report: those the `container` annotation lists (comma list), else all of them. */
export function reportedContainers<C extends { name: string }>(annotations: Record<string, string>, containers: readonly C[]): C[] {
  const chosen = annotations.container
    ?.split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  return chosen?.length ? containers.filter((c) => chosen.includes(c.name)) : [...containers];
}

/** When both repository and commit are annotated, the registry need not be asked for labels. */
export function needsLabels(annotations: Record<string, string>): boolean {
  return !(annotations.repository && annotations.commit);
}

const truthy = (v: string | undefined): boolean | undefined =>
  v === undefined ? undefined : ['true', 'yes', '1'].includes(v.trim().toLowerCase());

/** Resolves one container to a report target (annotation > OCI label > default), or says why not. */
export function resolveTarget(
  source: SourceInfo,
  workload: WorkloadInfo,
  container: { name: string; image: string },
  facts: ImageFacts | undefined,
  defaults: Defaults,
): Resolution {
  const a = boundedValues(nonBlank(workload.annotations));
  const labels = boundedValues(facts?.labels ?? {});
  const picked = pickRepository(a.repository, labels[LABEL_SOURCE], defaults.repositorySource ?? 'any');
  if (!picked) {
    return defaults.repositorySource === 'annotation'
      ? {
          code: 'no_repository',
          skip: `no ${ANNOTATION_PREFIX}repository annotation: REPOSITORY_SOURCE=annotation does not take the repository from image labels`,
        }
      : {
          code: 'no_repository',
          skip: `image ${container.image} has no ${LABEL_SOURCE} label: set annotation ${ANNOTATION_PREFIX}repository`,
        };
  }
  const origin = picked.from === 'annotation' ? `${ANNOTATION_PREFIX}repository annotation` : `${LABEL_SOURCE} label`;
  const repo = parseRepository(
    picked.value,
    defaults.forges.flatMap((f) => (f.nested === true ? [f.host.toLowerCase()] : [])),
  );
  if ('error' in repo) return { code: 'bad_repository', skip: `repository ${repo.error}: fix the ${origin}` };
  const routed = routeRepository(repo, defaults.forges);
  if ('error' in routed) return { code: 'bad_repository', skip: `repository ${quoted(picked.value)} (from the ${origin}) ${routed.error}` };
  if (!repositoryAllowed(defaults.allowedRepositories ?? [], repo.owner, repo.repo, routed.host)) {
    return { code: 'repository_not_allowed', skip: `${repo.owner}/${repo.repo} (from the ${origin}) is not in ALLOWED_REPOSITORIES` };
  }
  const commitValue = a.commit ?? labels[LABEL_REVISION];
  if (!commitValue)
    return {
      code: 'no_commit',
      skip: `image ${container.image} has no ${LABEL_REVISION} label: set annotation ${ANNOTATION_PREFIX}commit`,
    };
  const sha = parseCommit(commitValue);
  if (!sha)
    return {
      code: 'bad_commit',
      skip: `commit ${quoted(commitValue)} is not 7-40 hex digits: fix the ${a.commit ? `${ANNOTATION_PREFIX}commit annotation` : `${LABEL_REVISION} label`}`,
    };
  const environment = (a.environment ?? defaults.environment ?? '').trim();
  if (!environment)
    return { code: 'no_environment', skip: `no environment: set annotation ${ANNOTATION_PREFIX}environment or ENVIRONMENT` };

  const cluster = a.cluster ?? defaults.cluster;
  const annotatedName = a['deployment-name']?.trim() || undefined;
  const deploymentName = annotatedName ?? repo.repo;
  const warnings: string[] = [];
  const vars = escapeTemplateValues(
    {
      sha,
      namespace: workload.namespace,
      name: workload.name,
      service: a.service ?? workload.name,
      environment,
      cluster,
      kind: source.kind,
      fluxObject: source.name,
      // The name `{fluxObject}` had before it was called so; kept for templates already written.
      source: source.name,
    },
    defaults.escapeUrlValues ?? false,
  );
  const url = (template: string | undefined, what: string): string | undefined => {
    if (!template) return undefined;
    if (wasCut(template)) {
      warnings.push(`${what} dropped: ${quoted(template)} is too long`);
      return undefined;
    }
    const r = expandUrl(template, vars);
    if ('error' in r) warnings.push(`${what} dropped: ${r.error}`);
    return 'url' in r ? r.url : undefined;
  };
  // Annotation > discovered route > ENVIRONMENT_URL; a discovered URL is literal, not a template.
  const environmentUrl =
    a['environment-url'] === undefined && workload.routeUrl !== undefined
      ? workload.routeUrl
      : url(a['environment-url'] ?? defaults.environmentUrl, 'environment_url');
  const logUrl = url(a['log-url'] ?? defaults.logUrlTemplate, 'log_url');
  const productionEnvironment = truthy(a.production) ?? ['production', 'prod'].includes(environment.toLowerCase());
  const fluxBranch = source.annotations?.[FLUX_BRANCH_ANNOTATION];
  const { ref, warnings: refWarnings } = targetRef(a[REF_KEY], fluxBranch === undefined ? undefined : boundedValue(fluxBranch));
  const { tier, warning: tierWarning } = targetTier(productionEnvironment, a[TIER_KEY]);
  warnings.push(...refWarnings, ...(tierWarning === undefined ? [] : [tierWarning]));
  const sourceKey = source.kind === 'Kustomization' ? 'kustomization' : 'helmRelease';
  const payload: Record<string, unknown> = {
    cluster,
    namespace: workload.namespace,
    sourceNamespace: source.namespace,
    [sourceKey]: source.name,
    deploymentName,
    image: container.image,
  };
  if (facts?.digest) payload.digest = facts.digest;
  if (labels[LABEL_VERSION]) payload.version = labels[LABEL_VERSION];
  payload.controllerVersion = defaults.controllerVersion;
  for (const [key, field] of Object.entries(EXTRAS)) if (a[key]) payload[field] = a[key];

  return {
    target: {
      forge: routed.forge,
      owner: repo.owner,
      repo: repo.repo,
      environment,
      sha,
      deploymentName,
      ...(defaults.spoke ? { spoke: defaults.spoke } : {}),
      cluster,
      ...(annotatedName ? { task: annotatedName } : {}),
      description: oneLine(a.description ?? defaults.description, MAX_DEPLOYMENT_DESCRIPTION_CHARS),
      productionEnvironment,
      transientEnvironment: isTransient(a, environment, defaults.transientEnvironments ?? []),
      ...(environmentUrl ? { environmentUrl } : {}),
      ...(logUrl ? { logUrl } : {}),
      ...(ref ? { ref } : {}),
      ...(tier ? { tier } : {}),
      container: container.name,
      image: container.image,
      payload,
      warnings,
    },
  };
}
