import t from 'tap';
import { isAttestation, parsePlatform, selectManifest, type IndexEntry } from '../../src/oci/platform.js';

const amd64: IndexEntry = { digest: 'sha256:amd64', platform: { os: 'linux', architecture: 'amd64' } };
const arm64: IndexEntry = { digest: 'sha256:arm64', platform: { os: 'linux', architecture: 'arm64', variant: 'v8' } };
const arm64NoVariant: IndexEntry = { digest: 'sha256:arm64nv', platform: { os: 'linux', architecture: 'arm64' } };
const armv7: IndexEntry = { digest: 'sha256:armv7', platform: { os: 'linux', architecture: 'arm', variant: 'v7' } };
const armv6: IndexEntry = { digest: 'sha256:armv6', platform: { os: 'linux', architecture: 'arm', variant: 'v6' } };
const amd64v3: IndexEntry = { digest: 'sha256:amd64v3', platform: { os: 'linux', architecture: 'amd64', variant: 'v3' } };
const windows: IndexEntry = { digest: 'sha256:win', platform: { os: 'windows', architecture: 'amd64' } };
const attestation: IndexEntry = {
  digest: 'sha256:att',
  platform: { os: 'unknown', architecture: 'unknown' },
  annotations: { 'vnd.docker.reference.type': 'attestation-manifest', 'vnd.docker.reference.digest': 'sha256:amd64' },
};
const bareUnknown: IndexEntry = { digest: 'sha256:unk', platform: { os: 'unknown', architecture: 'unknown' } };
const annotatedOnly: IndexEntry = { digest: 'sha256:ann', annotations: { 'vnd.docker.reference.type': 'attestation-manifest' } };
const noPlatform: IndexEntry = { digest: 'sha256:nop' };

const cases: Array<[string, IndexEntry[], string | undefined, string | undefined]> = [
  ['default is linux/amd64', [arm64, amd64, attestation], undefined, 'sha256:amd64'],
  ['attestations first are skipped', [attestation, bareUnknown, arm64, amd64], undefined, 'sha256:amd64'],
  ['arm64 matches variant v8', [amd64, arm64], 'linux/arm64', 'sha256:arm64'],
  ['arm64/v8 matches an entry without variant', [amd64, arm64NoVariant], 'linux/arm64/v8', 'sha256:arm64nv'],
  ['arm64 matches an entry without variant', [amd64, arm64NoVariant], 'linux/arm64', 'sha256:arm64nv'],
  ['arm/v6 picks v6 over v7', [armv7, armv6], 'linux/arm/v6', 'sha256:armv6'],
  ['arm defaults to v7', [armv6, armv7], 'linux/arm', 'sha256:armv7'],
  ['amd64 (v1) does not pick v3 when v1 exists', [amd64v3, amd64], 'linux/amd64', 'sha256:amd64'],
  ['aliases: x86_64 is amd64', [arm64, amd64], 'linux/x86_64', 'sha256:amd64'],
  ['os must match', [windows, amd64], 'linux/amd64', 'sha256:amd64'],
  ['falls back to the first real platform', [attestation, arm64, windows], 'linux/amd64', 'sha256:arm64'],
  ['entries without platform count as runnable fallback', [annotatedOnly, noPlatform], 'linux/amd64', 'sha256:nop'],
  ['nothing but attestations', [attestation, bareUnknown, annotatedOnly], 'linux/amd64', undefined],
  ['empty index', [], undefined, undefined],
];

t.test('selects the platform manifest', (t) => {
  for (const [name, entries, wanted, want] of cases) {
    t.equal(selectManifest(entries, wanted === undefined ? undefined : parsePlatform(wanted))?.digest, want, name);
  }
  t.end();
});

t.test('recognises attestation entries', (t) => {
  t.ok(isAttestation(attestation));
  t.ok(isAttestation(bareUnknown));
  t.ok(isAttestation(annotatedOnly));
  t.notOk(isAttestation(amd64));
  t.notOk(isAttestation(noPlatform));
  t.end();
});

t.test('parses platform strings', (t) => {
  t.strictSame(parsePlatform('linux/arm64/v8'), { os: 'linux', architecture: 'arm64', variant: 'v8' });
  t.strictSame(parsePlatform('linux/amd64'), { os: 'linux', architecture: 'amd64' });
  for (const bad of ['linux', 'linux/', '/amd64', 'linux/arm/v7/x', 'linux/arm/']) t.throws(() => parsePlatform(bad), bad);
  t.end();
});
