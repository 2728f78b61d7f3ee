/** Renders the kustomize directories of the repository as a user would, for the manifest tests. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../fixtures/locate.js';

export type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; [k: string]: unknown };

/** `kubectl kustomize <dir>` (dir relative to the repository root), parsed. */
export function render(dir: string): Obj[] {
  let out: string;
  try {
    out = execFileSync('kubectl', ['kustomize', join(REPO_ROOT, dir)], { encoding: 'utf8' });
  } catch (err) {
    throw new Error('kubectl kustomize failed: install kubectl (Debian package kubernetes-client; .ci/run does)', { cause: err });
  }
  return parseYaml(out);
}

/** Every document of a YAML text, or of a file under the repository root. */
export const parseYaml = (text: string): Obj[] => parseAllDocuments(text).map((d) => d.toJS() as Obj);
export const readYaml = (path: string): Obj[] => parseYaml(readFileSync(join(REPO_ROOT, path), 'utf8'));

/** The one object of that kind (and name); throws when it was not rendered. */
export function find(objs: Obj[], kind: string, name?: string): Obj {
  const o = objs.find((x) => x.kind === kind && (name === undefined || x.metadata.name === name));
  if (!o) throw new Error(`${kind} ${name ?? ''} not rendered`);
  return o;
}

// The parts of rendered objects the tests look inside, as YAML has them (not the client's V1 classes: they rename `from`).
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } };
}
export interface Container {
  name: string;
  env: EnvVar[];
  ports: Array<{ name: string; containerPort: number; protocol: string }>;
  securityContext: unknown;
  livenessProbe: { httpGet: { path: string; port: string | number } };
  readinessProbe: { httpGet: { path: string; port: string | number } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  image: string;
  volumeMounts: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
}
export interface Volume {
  name: string;
  persistentVolumeClaim?: { claimName: string };
  secret?: { secretName: string; items?: Array<{ key: string; path: string }>; defaultMode?: number };
  configMap?: { name: string };
}
export interface Deployment extends Obj {
  spec: {
    replicas: number;
    strategy: { type: string };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { securityContext: unknown; containers: Container[]; volumes: Volume[] };
    };
  };
}
export interface Service extends Obj {
  spec: { selector: Record<string, string>; ports: Array<{ name: string; port: number; targetPort: string | number }> };
}

/** The bridge's Deployment and its container of a rendered install. */
export const bridgeDeployment = (objs: Obj[]) => find(objs, 'Deployment', 'github-deployment-bridge') as Deployment;
export const bridgeContainer = (objs: Obj[]) => {
  const c = bridgeDeployment(objs).spec.template.spec.containers.find((x) => x.name === 'bridge');
  if (!c) throw new Error('no container named bridge');
  return c;
};
