import t from 'tap';
import { payloadMatches } from '../../../src/forges/github/deployment-payload.js';
import type { ReportTarget } from '../../../src/metadata/resolve-target.js';

const SHA = '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
const IMAGE = 'ghcr.io/stefanprodan/podinfo:6.7.1';

const payload = {
  cluster: 'prod-eu-1',
  namespace: 'apps',
  sourceNamespace: 'flux-system',
  kustomization: 'apps',
  deploymentName: 'podinfo',
  image: IMAGE,
  digest: 'sha256:abc',
  version: '6.7.1',
  controllerVersion: '0.1.0',
  team: 'web',
};
const target = (p: Record<string, unknown> = payload): ReportTarget => ({
  forge: 'github',
  cluster: 'prod-eu-1',
  owner: 'stefanprodan',
  repo: 'podinfo',
  environment: 'production',
  sha: SHA,
  deploymentName: 'podinfo',
  description: 'Deployed by Flux',
  productionEnvironment: true,
  transientEnvironment: false,
  container: 'podinfod',
  image: IMAGE,
  payload: p,
  warnings: [],
});
const without = (o: Record<string, unknown>, ...keys: string[]) => Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));

t.test('payloadMatches', (t) => {
  const legacy = without(payload, 'sourceNamespace');
  legacy.namespace = 'flux-system';
  const rows: Array<[string, unknown, boolean]> = [
    ['same payload', { ...payload }, true],
    ['controllerVersion differs (upgrade)', { ...payload, controllerVersion: '0.0.9' }, true],
    ['controllerVersion missing', without(payload, 'controllerVersion'), true],
    ['extras differ', { ...payload, team: 'platform', slackChannel: '#x' }, true],
    ['extras missing', without(payload, 'team'), true],
    ['digest and version differ', { ...payload, digest: 'sha256:def', version: '6.7.2' }, true],
    ['image differs', { ...payload, image: 'ghcr.io/stefanprodan/podinfo:6.7.2' }, false],
    ['cluster differs', { ...payload, cluster: 'prod-us-1' }, false],
    ['workload namespace differs', { ...payload, namespace: 'apps-2' }, false],
    ['source namespace differs', { ...payload, sourceNamespace: 'other' }, false],
    ['kustomization differs', { ...payload, kustomization: 'infra' }, false],
    ['written by a HelmRelease of the same name', { ...without(payload, 'kustomization'), helmRelease: 'apps' }, false],
    ['deploymentName differs', { ...payload, deploymentName: 'podinfo-frontend' }, false],
    ['identity field missing', without(payload, 'image'), false],
    ['legacy shape (namespace = Flux namespace, no sourceNamespace)', legacy, true],
    ['legacy shape with a different image', { ...legacy, image: 'x' }, false],
    ['legacy shape with the workload namespace', without(payload, 'sourceNamespace'), false],
    ['payload as a JSON string', JSON.stringify(payload), true],
    ['legacy payload as a JSON string', JSON.stringify(legacy), true],
    ['JSON string of another identity', JSON.stringify({ ...payload, cluster: 'x' }), false],
    ['garbage string', 'not json {', false],
    ['empty string', '', false],
    ['JSON string of a string', JSON.stringify('payload'), false],
    ['JSON array', JSON.stringify([payload]), false],
    ['array', [payload], false],
    ['null', null, false],
    ['undefined', undefined, false],
    ['number', 42, false],
    ['empty object (deployment made by someone else)', {}, false],
  ];
  for (const [name, existing, want] of rows) t.equal(payloadMatches(existing, target()), want, name);
  t.end();
});

t.test('payloadMatches: HelmRelease target', (t) => {
  const hp = { ...without(payload, 'kustomization'), helmRelease: 'podinfo' };
  t.equal(payloadMatches({ ...hp }, target(hp)), true);
  t.equal(payloadMatches({ ...hp, kustomization: 'podinfo' }, target(hp)), false, 'a stray kustomization key is a different identity');
  t.equal(payloadMatches(payload, target(hp)), false);
  t.end();
});
