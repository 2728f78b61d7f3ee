/** Text from developers (annotations, image labels) is bounded where it is read, and quoted only in part. */
import t from 'tap';
import { MAX_VALUE_CHARS } from '../../src/common/text.js';
import type { SourceRef } from '../../src/flux/k8s-objects.js';
import type { K8sObject } from '../../src/kube/kube-types.js';
import {
  ANNOTATION_PREFIX as P,
  bridgeAnnotations,
  LABEL_REVISION,
  LABEL_SOURCE,
  resolveTarget,
  type Defaults,
  type Resolution,
  type ReportTarget,
} from '../../src/metadata/resolve-target.js';

const SHA = '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
const ks: SourceRef = { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' };
const defaults: Defaults = {
  cluster: 'c1',
  environment: 'staging',
  description: 'Deployed by Flux',
  forges: [{ forge: 'github', host: 'github.com' }],
  controllerVersion: '0.1.0',
};
const container = { name: 'app', image: 'ghcr.io/acme/app:1' };
const deployment = (annotations: Record<string, string>): K8sObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { namespace: 'apps', name: 'app', annotations },
  spec: {},
});
const resolve = (annotations: Record<string, string>, labels: Record<string, string> = {}): Resolution =>
  resolveTarget(
    ks,
    {
      kind: 'Deployment',
      namespace: 'apps',
      name: 'app',
      annotations: bridgeAnnotations(deployment(annotations)),
      containers: [container],
    },
    container,
    { labels },
    defaults,
  );
const target = (r: Resolution): ReportTarget => {
  if ('skip' in r) throw new Error(`unexpected skip: ${r.skip}`);
  return r.target;
};
const base = { [`${P}repository`]: 'acme/app', [`${P}commit`]: SHA };

t.test('a 200,000-character commit annotation: a short skip reason quoting its start and its length', (t) => {
  const r = resolve({ ...base, [`${P}commit`]: `deadbeef${'x'.repeat(199_992)}` });
  t.equal('skip' in r && r.code, 'bad_commit');
  const reason = 'skip' in r ? r.skip : '';
  t.ok(reason.length < 300, `reason is ${reason.length} characters`);
  t.match(
    reason,
    /^commit "deadbeefx+…" \(1000 characters\) is not 7-40 hex digits: fix the github-deployment-bridge\.io\/commit annotation$/,
  );
  t.end();
});

t.test('annotations are bounded where they are read', (t) => {
  const a = bridgeAnnotations(deployment({ [`${P}team`]: 'y'.repeat(100_000), [`${P}service`]: 'web' }));
  t.equal(Array.from(a.team ?? '').length, MAX_VALUE_CHARS);
  t.ok(a.team?.endsWith('…'));
  t.equal(a.service, 'web', 'short values as they are');
  t.end();
});

t.test('a 100,000-character payload field reaches the forge bounded', (t) => {
  const payload = target(resolve({ ...base, [`${P}team`]: 'z'.repeat(100_000) })).payload;
  t.equal(Array.from(String(payload.team)).length, MAX_VALUE_CHARS);
  t.end();
});

t.test('a 5,000-character description is cut to 140 characters on one line, like status descriptions', (t) => {
  const d = target(resolve({ ...base, [`${P}description`]: `Release\nnotes ${'w'.repeat(5_000)}` })).description;
  t.equal(Array.from(d).length, 140);
  t.ok(d.startsWith('Release notes www'));
  t.ok(d.endsWith('…'));
  t.equal(target(resolve(base)).description, 'Deployed by Flux', 'the default as it is');
  t.end();
});

t.test('an over-long environment URL is dropped with a warning that quotes only its start', (t) => {
  const tgt = target(resolve({ ...base, [`${P}environment-url`]: `https://example.com/${'p'.repeat(5_000)}` }));
  t.equal(tgt.environmentUrl, undefined);
  t.equal(tgt.warnings.length, 1);
  t.match(tgt.warnings[0], /^environment_url dropped: "https:\/\/example\.com\/p+…" \(1000 characters\) is too long$/);
  t.end();
});

t.test('image labels are bounded too: a 200,000-character revision label is quoted in part', (t) => {
  const r = resolve(
    { [`${P}repository`]: 'acme/app' },
    { [LABEL_SOURCE]: 'https://github.com/acme/app', [LABEL_REVISION]: 'r'.repeat(200_000) },
  );
  const reason = 'skip' in r ? r.skip : '';
  t.ok(reason.length < 300, `reason is ${reason.length} characters`);
  t.match(reason, /fix the org\.opencontainers\.image\.revision label$/);
  const long = resolve({ [`${P}commit`]: SHA }, { [LABEL_SOURCE]: `https://github.com/acme/${'n'.repeat(200_000)}` });
  t.ok('skip' in long && long.skip.length < 300, 'a long repository label: short reason');
  t.end();
});
