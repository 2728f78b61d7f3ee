/**
 * A workload's registry credentials, as the kubelet would find them: the pod template's
 * `imagePullSecrets`, or (when it names none, as the ServiceAccount admission plugin does) those
 * of its service account. Only the Secrets named there are read. Without RBAC for Secrets or
 * ServiceAccounts the keyring is simply empty, so pulls fall back to REGISTRY_AUTH_FILE and
 * anonymous, with one log line.
 */
import { KubeError, errorMessage } from '../common/errors.js';
import { isRecord } from '../common/json.js';
import type { KubeReader, SecretView } from '../kube/kube-types.js';
import { parseDockerConfigJson, parseDockercfg, type KeyringEntry, type ParsedKeyring } from '../oci/docker-config.js';

/** Logs a warning once per key (per process), so a steady problem is not repeated every resync. */
export type WarnOnce = (key: string, fields: Record<string, unknown>, message: string) => void;

/** The parts of a pod spec that name its service account. */
interface PodSpecAccount {
  serviceAccountName?: string;
  serviceAccount?: string;
}

const DOCKER_CONFIG_JSON = 'kubernetes.io/dockerconfigjson';
const DOCKERCFG = 'kubernetes.io/dockercfg';

/** The Secret names a pod template gives itself, in order, without duplicates. */
export function templatePullSecretNames(podSpec: unknown): string[] {
  const list = isRecord(podSpec) ? podSpec.imagePullSecrets : undefined;
  const names = Array.isArray(list)
    ? list.flatMap((ref: unknown) => (isRecord(ref) && typeof ref.name === 'string' && ref.name !== '' ? [ref.name] : []))
    : [];
  return [...new Set(names)];
}

/** The service account the pods run as (`default` when the template names none). */
export function serviceAccountOf(podSpec: unknown): string {
  const s = podSpec as PodSpecAccount | undefined;
  return s?.serviceAccountName || s?.serviceAccount || 'default';
}

/** The keyring entries of one Secret, by its type; other types hold no registry credentials. */
export function secretKeyring(secret: SecretView, what: string): ParsedKeyring {
  const decode = (key: string): string | undefined => {
    const v = secret.data[key];
    return v === undefined || v === '' ? undefined : Buffer.from(v, 'base64').toString('utf8');
  };
  try {
    if (secret.type === DOCKER_CONFIG_JSON) {
      const text = decode('.dockerconfigjson');
      return text === undefined ? { keyring: [], problems: [`${what} has no .dockerconfigjson`] } : parseDockerConfigJson(text, what);
    }
    if (secret.type === DOCKERCFG) {
      const text = decode('.dockercfg');
      return text === undefined ? { keyring: [], problems: [`${what} has no .dockercfg`] } : parseDockercfg(text, what);
    }
  } catch (err) {
    return { keyring: [], problems: [errorMessage(err)] };
  }
  return { keyring: [], problems: [`${what} has type ${secret.type}, not ${DOCKER_CONFIG_JSON} or ${DOCKERCFG}`] };
}

const forbidden = (err: unknown): boolean => err instanceof KubeError && (err.status === 403 || err.status === 401);

/**
 * Reads the keyring of a pod template in `namespace`. A 403 gives an empty keyring (logged once
 * per namespace); a missing or unusable Secret is skipped (logged once); other API failures throw,
 * so the source retries.
 */
export async function readPullSecrets(kube: KubeReader, warnOnce: WarnOnce, namespace: string, podSpec: unknown): Promise<KeyringEntry[]> {
  let names = templatePullSecretNames(podSpec);
  if (names.length === 0) {
    const account = serviceAccountOf(podSpec);
    try {
      names = [...new Set((await kube.getServiceAccountPullSecrets(namespace, account)) ?? [])];
    } catch (err) {
      if (!forbidden(err)) throw err;
      warnOnce(
        `forbidden serviceaccounts ${namespace}`,
        { namespace, error: errorMessage(err) },
        'cannot read service accounts (RBAC: get serviceaccounts): their imagePullSecrets are not used; pulls fall back to REGISTRY_AUTH_FILE and anonymous',
      );
      return [];
    }
  }
  const keyring: KeyringEntry[] = [];
  for (const name of names) {
    let secret: SecretView | null;
    try {
      secret = await kube.getSecret(namespace, name);
    } catch (err) {
      if (!forbidden(err)) throw err;
      warnOnce(
        `forbidden secrets ${namespace}`,
        { namespace, error: errorMessage(err) },
        'cannot read Secrets (RBAC: get secrets): imagePullSecrets are not used; pulls fall back to REGISTRY_AUTH_FILE and anonymous',
      );
      return keyring;
    }
    if (secret === null) {
      warnOnce(`missing secret ${namespace}/${name}`, { namespace, secret: name }, 'imagePullSecret not found; skipped');
      continue;
    }
    const parsed = secretKeyring(secret, `Secret ${namespace}/${name}`);
    for (const problem of parsed.problems) warnOnce(`secret problem ${problem}`, { namespace, secret: name }, problem);
    keyring.push(...parsed.keyring);
  }
  return keyring;
}
