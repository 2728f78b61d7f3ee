/** Writes a kubeconfig that points the real client at the fake server. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `<dir>/kubeconfig` with one cluster (server url), one token user and a current context,
 * and returns its path. The fake speaks plain http, which @kubernetes/client-node only accepts
 * with insecure-skip-tls-verify set.
 */
export function writeKubeconfig(dir: string, url: string, token: string): string {
  const path = join(dir, 'kubeconfig');
  writeFileSync(path, kubeconfigText(url, token), { mode: 0o600 });
  return path;
}

/**
 * The text writeKubeconfig writes: one cluster (plain http, insecure-skip-tls-verify), one token user, a current
 * context. With `caPem`, the server is verified with that CA (`certificate-authority-data`) instead.
 */
export function kubeconfigText(url: string, token: string, o: { caPem?: string } = {}): string {
  const q = (s: string) => JSON.stringify(s); // a JSON string is a valid YAML double-quoted scalar
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    '- name: fake',
    '  cluster:',
    `    server: ${q(url)}`,
    o.caPem ? `    certificate-authority-data: ${Buffer.from(o.caPem).toString('base64')}` : '    insecure-skip-tls-verify: true',
    'users:',
    '- name: bridge',
    '  user:',
    `    token: ${q(token)}`,
    'contexts:',
    '- name: fake',
    '  context:',
    '    cluster: fake',
    '    user: bridge',
    '    namespace: flux-system',
    'current-context: fake',
    '',
  ].join('\n');
}
