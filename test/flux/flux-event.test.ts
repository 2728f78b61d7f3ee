import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { MAX_FIELD_CHARS, parseFluxEvent, reportableKind } from '../../src/flux/flux-event.js';
import { fluxEventsDir } from '../fixtures/locate.js';

const FIXTURES = fluxEventsDir();

/** Every fixture that is an event, and whether it is a complete one. */
const EXPECTED: Record<string, { valid: true; kind: string; name: string } | { valid: false; fields: string[] }> = {
  'generic-hmac-test-vector.body.json': { valid: true, kind: 'GitRepository', name: 'webapp' },
  'kustomization-progressing-changeset.info.captured.json': { valid: true, kind: 'Kustomization', name: 'my-app-kustomization' },
  'kustomization-artifactfailed.error.captured.json': { valid: true, kind: 'Kustomization', name: 'my-app-kustomization' },
  'kustomization-validationfailed.error.nc-docs.json': { valid: true, kind: 'Kustomization', name: 'webapp' },
  'helmrelease-upgrade-succeeded.info.flux-2.0.0-rc.4.issue-3937.json': { valid: true, kind: 'HelmRelease', name: 'test-helm' },
  'helmrelease-upgrade-succeeded.info.v2beta1-era.issue-4453.json': { valid: true, kind: 'HelmRelease', name: 'appnamehere' },
  'helmrelease-annotation-metadata-deploymentid.partial.rfc-0008.json': {
    valid: false,
    fields: ['severity', 'reason', 'message', 'timestamp'],
  },
};

const read = (file: string): unknown => JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8'));

t.test('every shared Flux event fixture is classified', (t) => {
  const files = readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.json') && f !== 'generic-hmac-test-vector.json')
    .sort();
  t.same(files, Object.keys(EXPECTED).sort(), 'the table names every fixture (a new fixture needs a row)');
  for (const file of files) {
    const want = EXPECTED[file]!;
    const r = parseFluxEvent(read(file));
    if (want.valid) {
      t.equal(r.ok, true, `${file}: valid`);
      if (r.ok) {
        t.equal(r.event.involvedObject.kind, want.kind, `${file}: kind`);
        t.equal(r.event.involvedObject.name, want.name, `${file}: name`);
      } else t.fail(r.error);
    } else {
      t.equal(r.ok, false, `${file}: invalid`);
      if (!r.ok) for (const field of want.fields) t.match(r.error, new RegExp(`\\b${field} must`), `${file}: names ${field}`);
    }
  }
  t.end();
});

t.test('a valid event is returned as given, metadata included', (t) => {
  const value = read('kustomization-artifactfailed.error.captured.json');
  const r = parseFluxEvent(value);
  t.ok(r.ok);
  if (r.ok) {
    t.equal(r.event, value, 'no copy, no rewrite');
    t.same(r.event.metadata, { revision: 'main@sha1:07a684d59d1bc9a58e0c0d07ed480812b2b9a29e' });
    t.equal(r.event.severity, 'error');
    t.equal(r.event.reason, 'ArtifactFailed');
  }
  t.end();
});

const base = () => ({
  involvedObject: { kind: 'Kustomization', name: 'apps', namespace: 'flux-system' },
  severity: 'info',
  reason: 'ReconciliationSucceeded',
  message: 'Applied revision: main@sha1:07a684d59d1bc9a58e0c0d07ed480812b2b9a29e',
  timestamp: '2024-07-12T08:56:37Z',
});
const big = 'x'.repeat(MAX_FIELD_CHARS + 1);

t.test('hand-made valid events', (t) => {
  const rows: Array<[string, unknown]> = [
    ['minimal', base()],
    ['empty message', { ...base(), message: '' }],
    ['no metadata', base()],
    ['empty metadata', { ...base(), metadata: {} }],
    ['string metadata', { ...base(), metadata: { revision: 'main@sha1:abc', summary: 'env=prod' } }],
    ['fractional-second timestamp', { ...base(), timestamp: '2024-07-12T08:56:37.123456789Z' }],
    ['offset timestamp', { ...base(), timestamp: '2024-07-12T10:56:37+02:00' }],
    ['field exactly at the limit', { ...base(), message: 'x'.repeat(MAX_FIELD_CHARS) }],
    ['unknown extra fields', { ...base(), reportingInstance: 'kc-1', extra: [1, 2] }],
    ['other kinds are still events', { ...base(), involvedObject: { kind: 'GitRepository', name: 'r', namespace: 'n' } }],
  ];
  for (const [name, value] of rows) {
    const r = parseFluxEvent(value);
    t.equal(r.ok, true, name);
    if (!r.ok) t.comment(r.error);
  }
  t.end();
});

t.test('hand-made invalid events', (t) => {
  const io = base().involvedObject;
  const rows: Array<[string, unknown, RegExp[]]> = [
    ['null', null, [/must be a JSON object/]],
    ['string', 'event', [/must be a JSON object/]],
    ['number', 42, [/must be a JSON object/]],
    ['array', [base()], [/must be a JSON object/]],
    [
      'empty object',
      {},
      [
        /involvedObject must be an object/,
        /severity must be a string/,
        /reason must be a string/,
        /message must be a string/,
        /timestamp must be a string/,
      ],
    ],
    ['involvedObject is an array', { ...base(), involvedObject: [io] }, [/involvedObject must be an object/]],
    ['involvedObject is a string', { ...base(), involvedObject: 'Kustomization/apps' }, [/involvedObject must be an object/]],
    [
      'missing namespace',
      { ...base(), involvedObject: { kind: 'Kustomization', name: 'apps' } },
      [/involvedObject\.namespace must be a string/],
    ],
    ['empty namespace', { ...base(), involvedObject: { ...io, namespace: '' } }, [/involvedObject\.namespace must not be empty/]],
    [
      'missing kind and name',
      { ...base(), involvedObject: { namespace: 'x' } },
      [/involvedObject\.kind must be a string/, /involvedObject\.name must be a string/],
    ],
    ['numeric name', { ...base(), involvedObject: { ...io, name: 7 } }, [/involvedObject\.name must be a string/]],
    ['empty severity', { ...base(), severity: '' }, [/severity must not be empty/]],
    ['empty reason', { ...base(), reason: '' }, [/reason must not be empty/]],
    ['message is null', { ...base(), message: null }, [/message must be a string/]],
    ['metadata value is a number', { ...base(), metadata: { revision: 3 } }, [/metadata\.revision must be a string/]],
    ['metadata value is an object', { ...base(), metadata: { a: { b: 'c' } } }, [/metadata\.a must be a string/]],
    ['metadata is an array', { ...base(), metadata: ['a'] }, [/metadata must be an object/]],
    ['metadata is a string', { ...base(), metadata: 'revision=x' }, [/metadata must be an object/]],
    ['metadata is null', { ...base(), metadata: null }, [/metadata must be an object/]],
    ['timestamp not a date', { ...base(), timestamp: 'yesterday' }, [/timestamp must be an RFC 3339 date-time/]],
    ['timestamp is a number', { ...base(), timestamp: 1720774597 }, [/timestamp must be a string/]],
    ['oversized message', { ...base(), message: big }, [new RegExp(`message is longer than ${MAX_FIELD_CHARS}`)]],
    ['oversized reason', { ...base(), reason: big }, [/reason is longer than/]],
    ['oversized involvedObject.name', { ...base(), involvedObject: { ...io, name: big } }, [/involvedObject\.name is longer than/]],
    [
      'several problems at once',
      { ...base(), severity: 1, timestamp: 'nope', metadata: { x: false } },
      [/severity must be a string/, /timestamp must be an RFC 3339/, /metadata\.x must be a string/],
    ],
  ];
  for (const [name, value, errors] of rows) {
    const r = parseFluxEvent(value);
    t.equal(r.ok, false, `${name}: invalid`);
    if (!r.ok) for (const e of errors) t.match(r.error, e, `${name}: ${e.source}`);
  }
  t.end();
});

t.test('oversized metadata values are refused too (MAX_FIELD_CHARS: "any event field")', (t) => {
  const r = parseFluxEvent({ ...base(), metadata: { summary: big } });
  t.equal(r.ok, false);
  t.end();
});

t.test('reportableKind', (t) => {
  const rows: Array<[string, string | undefined]> = [
    ['Kustomization', 'Kustomization'],
    ['HelmRelease', 'HelmRelease'],
    ['GitRepository', undefined],
    ['OCIRepository', undefined],
    ['HelmChart', undefined],
    ['ImageUpdateAutomation', undefined],
    ['kustomization', undefined],
    ['helmrelease', undefined],
    ['', undefined],
  ];
  for (const [kind, want] of rows) t.equal(reportableKind(kind), want, kind || '(empty)');
  t.end();
});

t.test('the involved object must be named as the API server names objects (no queue row for what cannot exist)', (t) => {
  const rows: Array<['kind' | 'name' | 'namespace', string, boolean]> = [
    ['name', 'podinfo', true],
    ['name', 'apps.v2-blue', true],
    ['name', 'a'.repeat(253), true],
    ['name', 'a'.repeat(254), false],
    ['name', 'Web', false],
    ['name', '-web', false],
    ['name', 'web_1', false],
    ['name', 'web-😀', false],
    ['name', 'web\ud800', false],
    ['name', 'web\udc00\ud800', false],
    ['name', '../etc', false],
    ['namespace', 'flux-system', true],
    ['namespace', 'a'.repeat(63), true],
    ['namespace', 'a'.repeat(64), false],
    ['namespace', 'team.a', false],
    ['namespace', 'Team', false],
    ['kind', 'HelmRelease', true],
    ['kind', 'GitRepository', true],
    ['kind', 'helm release', false],
    ['kind', 'Kustomization\ud800', false],
  ];
  for (const [field, value, ok] of rows) {
    const r = parseFluxEvent({ ...base(), involvedObject: { ...base().involvedObject, [field]: value } });
    t.equal(r.ok, ok, `${field} ${JSON.stringify(value.length > 20 ? `${value.slice(0, 8)}…(${value.length})` : value)}`);
    if (!r.ok) t.match(r.error, `involvedObject.${field} is not a Kubernetes`);
  }
  t.equal(parseFluxEvent({ ...base(), message: 'lone \ud800 in a message' }).ok, true, 'only the identity fields are keys');
  t.end();
});
