import t, { type Test } from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeploymentStore, type Origin } from '../../src/store/deployment-store.js';
import type { Identity } from '../../src/lifecycle/identity.js';
import { SourceStore, type Skip } from '../../src/store/source-store.js';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import { openDatabase } from '../harness/database.js';

const sha = (c: string) => c.repeat(40);
const id = (o: Partial<Identity> = {}): Identity => ({
  forge: 'github',
  owner: 'stefanprodan',
  repo: 'podinfo',
  environment: 'production',
  sha: sha('a'),
  deploymentName: 'podinfo',
  ...o,
});
const apps: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
const origin = (o: Partial<Origin> = {}): Origin => ({
  source: apps,
  workload: { kind: 'Deployment', namespace: 'apps', name: 'podinfo' },
  container: 'podinfod',
  image: 'ghcr.io/stefanprodan/podinfo:6.7.1',
  ...o,
});

function open(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-deployments-'));
  const path = join(dir, 'bridge.db');
  const db = openDatabase(path);
  t.teardown(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { db, path, deployments: new DeploymentStore(db), sources: new SourceStore(db) };
}

t.test('insertProvisional is idempotent', (t) => {
  const { deployments } = open(t);
  t.equal(deployments.get(id()), undefined, 'unknown identity');
  const row = deployments.insertProvisional(id(), origin(), 100);
  t.same(row, {
    ...id(),
    deploymentId: null,
    context: null,
    state: null,
    pendingState: null,
    description: null,
    origin: origin(),
    updatedAt: 100,
  });
  const again = deployments.insertProvisional(id(), origin({ container: 'other', image: 'x:1' }), 200);
  t.same(again, row, 'second insert changes nothing (first origin and time kept)');
  deployments.setDeploymentId(id(), 42, null, 300);
  t.equal(deployments.insertProvisional(id(), origin(), 400).deploymentId, 42, 'never resets a known deployment id');
  t.equal(deployments.list().length, 1);
  t.end();
});

t.test('setDeploymentId, setPending, setState', (t) => {
  const { deployments } = open(t);
  deployments.insertProvisional(id(), origin(), 100);
  deployments.setDeploymentId(id(), 1001, 'in_progress', 200);
  t.match(deployments.get(id()), { deploymentId: 1001, state: 'in_progress', pendingState: null, updatedAt: 200 });
  deployments.setPending(id(), 'success', 300);
  t.match(deployments.get(id()), { state: 'in_progress', pendingState: 'success', updatedAt: 300 }, 'pending mark before the POST');
  deployments.setState(id(), 'success', 'Applied revision main@sha1:aaaa', 400);
  t.match(deployments.get(id()), { state: 'success', pendingState: null, description: 'Applied revision main@sha1:aaaa', updatedAt: 400 });
  deployments.setPending(id(), 'gone', 500);
  deployments.setPending(id(), null, 600);
  t.match(deployments.get(id()), { state: 'success', pendingState: null, updatedAt: 600 }, 'mark cleared');
  deployments.setState(id({ sha: sha('f') }), 'failure', null, 700);
  t.equal(deployments.get(id({ sha: sha('f') })), undefined, 'updates never create rows');
  t.equal(deployments.get(id())?.state, 'success', 'other rows untouched');
  t.end();
});

t.test('identity is the whole key', (t) => {
  const { deployments } = open(t);
  const ids = [
    id(),
    id({ owner: 'other' }),
    id({ repo: 'podinfo2' }),
    id({ environment: 'staging' }),
    id({ sha: sha('b') }),
    id({ deploymentName: 'api' }),
  ];
  ids.forEach((i, n) => deployments.insertProvisional(i, origin(), n));
  t.equal(deployments.list().length, ids.length);
  deployments.setDeploymentId(id({ environment: 'staging' }), 7, 'success', 10);
  t.same(
    ids.map((i) => deployments.get(i)?.deploymentId),
    [null, null, null, 7, null, null],
  );
  t.end();
});

t.test('lineage', (t) => {
  const { deployments } = open(t);
  const add = (i: Identity, deploymentId: number | null, state: 'success' | 'failure' | null, now: number) => {
    deployments.insertProvisional(i, origin(), now);
    if (deploymentId !== null) deployments.setDeploymentId(i, deploymentId, state, now);
  };
  add(id({ sha: sha('1') }), 1, 'success', 1);
  add(id({ sha: sha('2') }), 2, 'failure', 2);
  add(id({ sha: sha('3') }), null, null, 3);
  add(id({ sha: sha('4') }), 4, 'success', 4);
  add(id({ sha: sha('5'), environment: 'staging' }), 5, 'success', 5);
  add(id({ sha: sha('6'), deploymentName: 'api' }), 6, 'success', 6);
  add(id({ sha: sha('7'), repo: 'other' }), 7, 'success', 7);
  const lineage = deployments.lineage(id({ sha: sha('4') }));
  t.same(lineage.map((r) => r.deploymentId).sort(), [1, 2], 'same owner/repo/environment/name; not itself, not provisional');
  t.same(
    deployments
      .lineage(id({ sha: sha('9') }))
      .map((r) => r.deploymentId)
      .sort(),
    [1, 2, 4],
    'for a new commit: every earlier one',
  );
  t.same(deployments.lineage(id({ environment: 'qa' })), []);
  t.end();
});

t.test('countsByState', (t) => {
  const { deployments } = open(t);
  t.same(deployments.countsByState(), []);
  deployments.insertProvisional(id({ sha: sha('1') }), origin(), 1);
  deployments.insertProvisional(id({ sha: sha('2') }), origin(), 2);
  deployments.insertProvisional(id({ sha: sha('3') }), origin(), 3);
  deployments.insertProvisional(id({ sha: sha('4') }), origin(), 4);
  deployments.setDeploymentId(id({ sha: sha('2') }), 2, 'success', 5);
  deployments.setDeploymentId(id({ sha: sha('3') }), 3, 'success', 5);
  deployments.setDeploymentId(id({ sha: sha('4') }), 4, null, 5);
  const counts = Object.fromEntries(deployments.countsByState().map((r) => [r.state, r.count]));
  t.same(counts, { provisional: 2, success: 2 }, 'no state yet counts as provisional');
  t.end();
});

t.test('list is newest first and survives reopening', (t) => {
  const { db, path, deployments } = open(t);
  deployments.insertProvisional(id({ sha: sha('1') }), origin(), 10);
  deployments.insertProvisional(id({ sha: sha('2') }), origin(), 30);
  deployments.insertProvisional(id({ sha: sha('3') }), origin(), 20);
  t.same(
    deployments.list().map((r) => r.updatedAt),
    [30, 20, 10],
  );
  t.equal(deployments.list(1).length, 1);
  db.close();
  const again = openDatabase(path);
  t.teardown(() => again.close());
  t.same(
    new DeploymentStore(again).list().map((r) => r.sha),
    [sha('2'), sha('3'), sha('1')],
  );
  t.end();
});

const skip = (name: string, reason: string, container = 'app'): Skip => ({
  source: apps,
  workload: { kind: 'Deployment', namespace: 'apps', name },
  container,
  code: 'no_repository',
  reason,
});

t.test('SourceStore.replaceSkips reports each reason once', (t) => {
  const { sources } = open(t);
  const a = skip('web', 'image has no org.opencontainers.image.source label');
  const b = skip('api', 'no environment: set annotation github-deployment-bridge.io/environment or ENVIRONMENT');
  t.same(sources.replaceSkips(apps, [a, b], 100), [a, b], 'first sight: both new');
  t.same(sources.replaceSkips(apps, [a, b], 200), [], 'unchanged: nothing to log');
  const since = () => Object.fromEntries(sources.listSkips().map((s) => [s.workload.name, s.since]));
  t.same(since(), { web: 100, api: 100 }, 'since kept for unchanged reasons');

  const b2 = { ...b, reason: 'commit "main" is not 7-40 hex digits' };
  t.same(sources.replaceSkips(apps, [a, b2], 300), [b2], 'only the changed reason');
  t.same(since(), { web: 100, api: 300 });

  const c = skip('web', 'another container', 'sidecar');
  t.same(sources.replaceSkips(apps, [a, c], 400), [c], 'api fixed, web/sidecar new');
  t.same(
    sources
      .listSkips()
      .map((s) => `${s.workload.name}/${s.container}`)
      .sort(),
    ['web/app', 'web/sidecar'],
    'fixed skips are dropped',
  );

  t.same(sources.replaceSkips(apps, [], 500), []);
  t.same(sources.listSkips(), [], 'empty list clears');
  t.same(sources.replaceSkips(apps, [a], 600), [a], 'a reason that comes back is logged again');
  t.end();
});

t.test('SourceStore.replaceSkips is per source', (t) => {
  const { sources } = open(t);
  const infra: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'infra' };
  const a = skip('web', 'r1');
  const other: Skip = { ...skip('web', 'r1'), source: infra };
  sources.replaceSkips(apps, [a], 100);
  t.same(sources.replaceSkips(infra, [other], 200), [other], 'same workload under another source is its own skip');
  sources.replaceSkips(apps, [], 300);
  t.same(sources.listSkips(), [{ ...other, since: 200 }], 'other source untouched');
  t.end();
});

t.test('SourceStore.record and recordError', (t) => {
  const { sources } = open(t);
  sources.recordError(apps, 'kube 503', 50);
  t.match(sources.list(), [{ ...apps, phase: null, lastSeen: 50, lastError: 'kube 503' }]);
  sources.record({ ...apps, phase: 'success', reason: 'ReconciliationSucceeded', message: 'ok', revision: 'main@sha1:abc', lastSeen: 100 });
  t.same(sources.list(), [
    {
      ...apps,
      phase: 'success',
      reason: 'ReconciliationSucceeded',
      message: 'ok',
      revision: 'main@sha1:abc',
      lastSeen: 100,
      lastError: null,
    },
  ]);
  sources.recordError(apps, 'GitHub 502', 200);
  t.match(sources.list(), [{ phase: 'success', lastSeen: 100, lastError: 'GitHub 502' }], 'error kept, phase untouched');
  t.end();
});
