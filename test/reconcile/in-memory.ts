/**
 * Small in-memory fakes of the ports the reconcile reads and writes through: the Kubernetes API
 * (`KubeReader`), image facts (`ImageFactsSource`, standing in for pods and registries) and GitHub's
 * deployment endpoints (`DeploymentsPort`). Each can be made to fail the way its real one does.
 */
import { KubeError, RegistryError } from '../../src/common/errors.js';
import { GitHubCallError } from '../../src/forges/github/call-error.js';
import type {
  CreateDeploymentBody,
  CreateStatusBody,
  DeploymentsPort,
  GhDeployment,
  GhStatus,
  RepoRef,
} from '../../src/forges/github/github-types.js';
import type { ImageFactsSource } from '../../src/images/image-facts.js';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import type { K8sObject, KubeReader, WorkloadKind } from '../../src/kube/kube-types.js';

/** `fn`'s value, or its throw, as a promise (what an async endpoint gives). */
function settle<T>(fn: () => T): Promise<T> {
  return new Promise((resolve) => {
    resolve(fn());
  });
}

const objectKey = (kind: string, namespace: string, name: string) => `${kind}/${namespace}/${name}`;

/** The Kubernetes API: objects by kind, namespace and name; `down` makes every read fail as an outage. */
export class MemoryKube implements KubeReader {
  private readonly objects = new Map<string, K8sObject>();
  /** Namespaces deleted (`deleteNamespace`); every other namespace exists. */
  private readonly deletedNamespaces = new Set<string>();
  down: string | null = null;

  put(obj: K8sObject & { kind: string }): void {
    this.objects.set(objectKey(obj.kind, obj.metadata.namespace ?? '', obj.metadata.name), structuredClone(obj));
  }

  remove(kind: string, namespace: string, name: string): void {
    this.objects.delete(objectKey(kind, namespace, name));
  }

  /** Deletes a namespace and everything in it, as the API's namespace controller does. */
  deleteNamespace(name: string): void {
    this.deletedNamespaces.add(name);
    for (const [key, o] of this.objects) if (o.metadata.namespace === name) this.objects.delete(key);
  }

  private read<T>(value: () => T): Promise<T> {
    return settle(() => {
      if (this.down !== null) throw new KubeError(`Kubernetes API: ${this.down}`);
      return value();
    });
  }

  getFluxObject(ref: SourceRef): Promise<K8sObject | null> {
    return this.read(() => this.objects.get(objectKey(ref.kind, ref.namespace, ref.name)) ?? null);
  }

  getWorkload(kind: WorkloadKind, namespace: string, name: string): Promise<K8sObject | null> {
    return this.read(() => this.objects.get(objectKey(kind, namespace, name)) ?? null);
  }

  listFluxObjects(kind: string, namespaces: readonly string[]): Promise<K8sObject[]> {
    return this.read(() =>
      [...this.objects.values()].filter(
        (o) => o.kind === kind && (namespaces.length === 0 || namespaces.includes(o.metadata.namespace ?? '')),
      ),
    );
  }

  listWorkloads(kind: WorkloadKind, namespace: string): Promise<K8sObject[]> {
    return this.read(() => [...this.objects.values()].filter((o) => o.kind === kind && o.metadata.namespace === namespace));
  }

  getRoutingObject(kind: string, namespace: string, name: string): Promise<K8sObject | null> {
    return this.read(() => this.objects.get(objectKey(kind, namespace, name)) ?? null);
  }

  listRoutingObjects(kind: string, namespace: string): Promise<K8sObject[]> {
    return this.listWorkloads(kind as WorkloadKind, namespace);
  }

  getNamespace(name: string): Promise<K8sObject | null> {
    return this.read(() => (this.deletedNamespaces.has(name) ? null : { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  }

  getSecret(): Promise<null> {
    return this.read(() => null);
  }

  getServiceAccountPullSecrets(): Promise<null> {
    return this.read(() => null);
  }

  listPods(): Promise<[]> {
    return this.read(() => []);
  }
}

/** Registries as the reconcile sees them: an image's OCI labels; `down` makes every look-up an outage. */
export class MemoryRegistry implements ImageFactsSource {
  readonly labels = new Map<string, Record<string, string>>();
  down = false;

  forWorkload(): ReturnType<ImageFactsSource['forWorkload']> {
    return {
      facts: (container, needLabels) => {
        if (!needLabels) return Promise.resolve(undefined);
        const host = container.image.split('/')[0] ?? '';
        if (this.down) return Promise.reject(new RegistryError('unavailable', `${host} is unreachable (ECONNREFUSED)`));
        const labels = this.labels.get(container.image);
        return labels
          ? Promise.resolve({ labels })
          : Promise.reject(new RegistryError('not_found', `${container.image} not found in ${host}`));
      },
    };
  }
}

/** A deployment as the fake GitHub keeps it. */
export interface MemoryDeployment extends GhDeployment {
  owner: string;
  repo: string;
  statuses: Array<CreateStatusBody & { id: number }>;
}

/** A failure of the next matching call: GitHub's answer (`status`), or none at all (`status` undefined). */
export interface Fault {
  method: Exclude<keyof DeploymentsPort, 'queryDeployments'>;
  status?: number;
  message: string;
  /** Fail this many matching calls (default: every one, until removed). */
  times?: number;
  /** Only calls on this repository (`owner/repo`); every repository when omitted. */
  repo?: string;
}

/** GitHub's deployment endpoints, in memory; `faults` fail matching calls; `calls` lists every call made. */
export class MemoryGitHub implements DeploymentsPort {
  readonly deployments: MemoryDeployment[] = [];
  readonly calls: string[] = [];
  faults: Fault[] = [];
  private nextId = 1;

  private call(method: Exclude<keyof DeploymentsPort, 'queryDeployments'>, repo: RepoRef): void {
    this.calls.push(`${method} ${repo.owner}/${repo.repo}`);
    const fault = this.faults.find((f) => f.method === method && (f.repo === undefined || f.repo === `${repo.owner}/${repo.repo}`));
    if (fault === undefined) return;
    if (fault.times !== undefined && --fault.times <= 0) this.faults = this.faults.filter((f) => f !== fault);
    throw new GitHubCallError(fault.message, fault.status, fault.message, method);
  }

  private find(repo: RepoRef, id: number, method: Exclude<keyof DeploymentsPort, 'queryDeployments'>): MemoryDeployment {
    const d = this.deployments.find((x) => x.id === id && x.owner === repo.owner && x.repo === repo.repo);
    if (!d) throw new GitHubCallError('Not Found', 404, 'Not Found', method);
    return d;
  }

  /** Deletes a deployment, as a person can on GitHub: its statuses answer 404 from then on. */
  remove(id: number): void {
    const at = this.deployments.findIndex((d) => d.id === id);
    if (at < 0) throw new Error(`no deployment ${id} to remove`);
    this.deployments.splice(at, 1);
  }

  listDeployments(repo: RepoRef, q: { sha: string; environment: string; task?: string }): Promise<GhDeployment[]> {
    return settle(() => {
      this.call('listDeployments', repo);
      return this.deployments.filter(
        (d) => d.owner === repo.owner && d.repo === repo.repo && d.sha === q.sha && d.environment === q.environment,
      );
    });
  }

  createDeployment(repo: RepoRef, body: CreateDeploymentBody): Promise<GhDeployment> {
    return settle(() => {
      this.call('createDeployment', repo);
      const d: MemoryDeployment = {
        ...repo,
        id: this.nextId++,
        sha: body.ref,
        ref: body.ref,
        task: body.task ?? 'deploy',
        environment: body.environment,
        payload: body.payload,
        created_at: new Date(0).toISOString(),
        statuses: [],
      };
      this.deployments.push(d);
      return d;
    });
  }

  listStatuses(repo: RepoRef, id: number): Promise<GhStatus[]> {
    return settle(() => {
      this.call('listStatuses', repo);
      return this.find(repo, id, 'listStatuses')
        .statuses.map((s) => ({ id: s.id, state: s.state, created_at: new Date(0).toISOString() }))
        .reverse();
    });
  }

  createStatus(repo: RepoRef, id: number, body: CreateStatusBody): Promise<void> {
    return settle(() => {
      this.call('createStatus', repo);
      const d = this.find(repo, id, 'createStatus');
      d.statuses.push({ ...body, id: this.nextId++ });
    });
  }

  /** The states each deployment of a repository was sent, oldest deployment first. */
  trail(owner: string, repo: string): string[][] {
    return this.deployments.filter((d) => d.owner === owner && d.repo === repo).map((d) => d.statuses.map((s) => s.state));
  }

  /** Calls that write (create a deployment or a status). */
  writes(): string[] {
    return this.calls.filter((c) => c.startsWith('create'));
  }
}
