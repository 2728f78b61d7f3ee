import t from 'tap';
import { RegistryError } from '../../src/common/errors.js';
import { MediaType, parseConfigLabels, parseManifest } from '../../src/oci/manifest.js';

const enc = (v: unknown): Uint8Array => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v));
const config = { mediaType: MediaType.dockerConfig, digest: 'sha256:c', size: 1 };

function failure(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof RegistryError ? `${err.failure}: ${err.message}` : `other: ${String(err)}`;
  }
  return undefined;
}

t.test('decodes image manifests and indexes', (t) => {
  t.strictSame(parseManifest(enc({ schemaVersion: 2, mediaType: MediaType.dockerManifest, config, layers: [] }), null, 'x'), {
    kind: 'image',
    config: { digest: 'sha256:c', mediaType: MediaType.dockerConfig },
  });
  // OCI manifests may omit mediaType: the header decides, then the shape
  const oci = { schemaVersion: 2, config: { ...config, mediaType: MediaType.ociConfig }, layers: [] };
  t.equal(parseManifest(enc(oci), `${MediaType.ociManifest}; charset=utf-8`, 'x').kind, 'image');
  t.equal(parseManifest(enc(oci), 'application/json', 'x').kind, 'image');
  const index = {
    schemaVersion: 2,
    manifests: [{ digest: 'sha256:a', platform: { os: 'linux', architecture: 'amd64' } }, { bogus: true }],
  };
  t.strictSame(parseManifest(enc(index), MediaType.ociIndex, 'x'), { kind: 'index', manifests: [index.manifests[0]] });
  t.equal(parseManifest(enc({ ...index, mediaType: MediaType.dockerList }), 'application/octet-stream', 'x').kind, 'index');
  t.end();
});

t.test('rejects what is not a v2 container image', (t) => {
  t.match(
    failure(() =>
      parseManifest(enc({ schemaVersion: 1, name: 'a', fsLayers: [] }), 'application/vnd.docker.distribution.manifest.v1+prettyjws', 'img'),
    ),
    /^invalid: img is a Docker schema1 manifest/,
  );
  t.match(
    failure(() => parseManifest(enc({ schemaVersion: 1 }), 'application/json', 'img')),
    /^invalid: .*schema1/,
  );
  t.match(
    failure(() => parseManifest(enc('{nope'), MediaType.ociManifest, 'img')),
    /^invalid: img is not valid JSON/,
  );
  t.match(
    failure(() => parseManifest(enc('[]'), MediaType.ociManifest, 'img')),
    /^invalid: img is not a JSON object/,
  );
  t.match(
    failure(() => parseManifest(enc({ schemaVersion: 2, mediaType: 'application/vnd.example+json' }), null, 'img')),
    /^invalid: img has unsupported media type "application\/vnd.example\+json"/,
  );
  const helm = {
    schemaVersion: 2,
    mediaType: MediaType.ociManifest,
    config: { mediaType: 'application/vnd.cncf.helm.config.v1+json', digest: 'sha256:h' },
    layers: [],
  };
  t.match(
    failure(() => parseManifest(enc(helm), null, 'chart')),
    /^invalid: chart is not a container image \(config media type "application\/vnd.cncf.helm.config.v1\+json"\)/,
  );
  t.match(
    failure(() => parseManifest(enc({ schemaVersion: 2, mediaType: MediaType.ociIndex }), null, 'idx')),
    /^invalid: idx: index without "manifests"/,
  );
  t.end();
});

t.test('reads config.Labels', (t) => {
  t.strictSame(parseConfigLabels(enc({ config: { Labels: { a: 'b', n: 1 } } }), 'c'), { a: 'b' });
  t.strictSame(parseConfigLabels(enc({ config: { Labels: null } }), 'c'), {});
  t.strictSame(parseConfigLabels(enc({ config: {} }), 'c'), {});
  t.strictSame(parseConfigLabels(enc({ architecture: 'amd64' }), 'c'), {});
  t.match(
    failure(() => parseConfigLabels(enc('not json'), 'cfg')),
    /^invalid: cfg is not valid JSON/,
  );
  t.end();
});

t.test('config.Labels are bounded where they are read: long values cut, at most 256 labels, the OCI ones kept first', (t) => {
  const many = Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`label.${i}`, 'v']));
  const labels = parseConfigLabels(
    enc({ config: { Labels: { ...many, 'org.opencontainers.image.revision': 'r'.repeat(200_000), ['k'.repeat(5000)]: 'long key' } } }),
    'c',
  );
  t.equal(Object.keys(labels).length, 256);
  t.equal(labels['org.opencontainers.image.revision']?.length, 1000);
  t.ok(labels['org.opencontainers.image.revision']?.endsWith('…'));
  t.equal(labels['label.0'], 'v');
  t.notOk('k'.repeat(5000) in labels, 'a key longer than a value may be is dropped');
  t.end();
});
