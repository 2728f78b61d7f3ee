/**
 * The registry client against the real docker-registry (distribution 2.8), plus a small proxy
 * in front of it for Bearer tokens and cross-host blob redirects.
 */
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { RegistryError } from '../../src/common/errors.js';
import { createRegistryClient } from '../../src/oci/registry-client.js';
import { parseImageReference } from '../../src/oci/reference.js';
import { pushBlob, pushImage, pushIndex, pushManifest } from '../harness/push-image.js';
import { startRegistry } from '../harness/registry.js';
import { startRegistryProxy } from './registry-proxy.js';

/** Resolves to the RegistryError `fn` rejects with (fails the test on anything else). */
async function registryError(p: Promise<unknown>): Promise<RegistryError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RegistryError) return err;
    throw err;
  }
  throw new Error('expected a RegistryError, got success');
}

const registry = await startRegistry();
t.teardown(() => registry.close());
const host = registry.host;
const client = createRegistryClient({ insecureHosts: [host] });

const appDigest = await pushImage(registry.url, 'team/app', 'v1', {
  labels: { 'org.opencontainers.image.source': 'https://github.com/acme/app', 'org.opencontainers.image.revision': 'abc123' },
});
await pushImage(registry.url, 'team/bare', 'v1');
const multi = await pushIndex(
  registry.url,
  'team/multi',
  '2.0',
  [
    { os: 'linux', architecture: 'amd64', labels: { arch: 'amd64' } },
    { os: 'linux', architecture: 'arm64', variant: 'v8', labels: { arch: 'arm64' } },
  ],
  { attestation: true },
);

t.test('single-platform Docker v2 image, anonymous', async (t) => {
  const meta = await client.imageMetadata(`${host}/team/app:v1`);
  t.strictSame(meta, {
    digest: appDigest,
    labels: { 'org.opencontainers.image.source': 'https://github.com/acme/app', 'org.opencontainers.image.revision': 'abc123' },
  });
  t.strictSame(await client.imageMetadata(`${host}/team/app@${appDigest}`), meta, 'by digest');
  t.strictSame(await client.imageMetadata(`${host}/team/bare:v1`).then((m) => m.labels), {}, 'config.Labels null → {}');
});

t.test('OCI index with attestations: linux/amd64 by default, arm64 by option', async (t) => {
  t.equal(multi.attestations.length, 2);
  t.strictSame(await client.imageMetadata(`${host}/team/multi:2.0`), {
    digest: multi.digest,
    platformDigest: multi.platforms['linux/amd64'],
    labels: { arch: 'amd64' },
  });
  const arm = createRegistryClient({ insecureHosts: [host], platform: { os: 'linux', architecture: 'arm64' } });
  t.strictSame(await arm.imageMetadata(`${host}/team/multi:2.0`), {
    digest: multi.digest,
    platformDigest: multi.platforms['linux/arm64/v8'],
    labels: { arch: 'arm64' },
  });
  const s390 = createRegistryClient({ insecureHosts: [host], platform: { os: 'linux', architecture: 's390x' } });
  t.equal(
    (await s390.imageMetadata(`${host}/team/multi:2.0`)).platformDigest,
    multi.platforms['linux/amd64'],
    'falls back to the first real platform',
  );
  t.equal(
    (await client.imageMetadata(`${host}/team/multi:ignored@${multi.digest}`)).platformDigest,
    multi.platforms['linux/amd64'],
    'index digest wins over tag',
  );
  t.equal(
    await client.resolveTag(parseImageReference(`${host}/team/multi:2.0`)),
    multi.digest,
    'a tag resolves to the index digest, what pods report',
  );
});

t.test('missing tag → not_found', async (t) => {
  const err = await registryError(client.imageMetadata(`${host}/team/app:missing`));
  t.equal(err.failure, 'not_found');
  t.equal(err.message, `${host}/team/app:missing not found`);
  t.equal((await registryError(client.imageMetadata(`${host}/team/nothing-here`))).failure, 'not_found');
});

t.test('an artifact that is not a container image → invalid', async (t) => {
  const config = await pushBlob(registry.url, 'team/chart', Buffer.from('{"name":"chart"}'), 'application/vnd.cncf.helm.config.v1+json');
  await pushManifest(registry.url, 'team/chart', '1.0.0', {
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config,
    layers: [],
  });
  const err = await registryError(client.imageMetadata(`${host}/team/chart:1.0.0`));
  t.equal(err.failure, 'invalid');
  t.match(err.message, /not a container image/);
});

t.test('HTTPS to a plain-HTTP registry not listed as insecure → tls', async (t) => {
  const err = await registryError(createRegistryClient().imageMetadata(`${host}/team/app:v1`));
  t.equal(err.failure, 'tls');
  t.match(err.message, new RegExp(`^TLS to ${host} failed \\(\\w+\\); if it serves plain HTTP, add ${host} to REGISTRY_INSECURE_HOSTS$`));
  t.ok(err.cause, 'keeps the cause');
});

t.test('htpasswd registry: denied without credentials, labels with them', async (t) => {
  const users = { alice: 'correct horse' };
  const locked = await startRegistry({ auth: 'htpasswd', users });
  t.teardown(() => locked.close());
  const digest = await pushImage(locked.url, 'private/app', 'v1', {
    labels: { team: 'a' },
    auth: { username: 'alice', password: 'correct horse' },
  });
  const ref = `${locked.host}/private/app:v1`;

  const anonymous = await registryError(createRegistryClient({ insecureHosts: [locked.host] }).imageMetadata(ref));
  t.equal(anonymous.failure, 'denied');
  t.equal(anonymous.message, `${locked.host} denied pull of private/app: add an imagePullSecret or REGISTRY_AUTH_FILE`);

  const asked: string[] = [];
  const withCreds = createRegistryClient({
    insecureHosts: [locked.host],
    credentialsFor: (h) => (asked.push(h), h === locked.host ? { username: 'alice', password: 'correct horse' } : undefined),
  });
  t.strictSame(await withCreds.imageMetadata(ref), { digest, labels: { team: 'a' } });
  t.strictSame(asked, [locked.host], 'credentials looked up once, by registry host; the Basic answer is reused');

  const wrong = createRegistryClient({ insecureHosts: [locked.host], credentialsFor: () => ({ username: 'alice', password: 'nope' }) });
  t.equal((await registryError(wrong.imageMetadata(ref))).failure, 'denied');
});

t.test('per-call credentials: each pull authenticates as its caller; answers are never shared across credentials', async (t) => {
  const alice = { username: 'alice', password: 'pw-a' };
  const locked = await startRegistry({ auth: 'htpasswd', users: { alice: alice.password } });
  t.teardown(() => locked.close());
  const digest = await pushImage(locked.url, 'private/solo', 'v1', { labels: { who: 'alice' }, auth: alice });
  const shared = createRegistryClient({ insecureHosts: [locked.host] });
  const ref = `${locked.host}/private/solo:v1`;
  let lookups = 0;
  const own = {
    credentials: (registry: string, repository: string) => (
      lookups++,
      registry === locked.host && repository === 'private/solo' ? alice : undefined
    ),
  };
  t.strictSame(await shared.imageMetadata(ref, own), { digest, labels: { who: 'alice' } });
  t.equal(lookups, 1, 'looked up once per call, with registry and repository');
  t.equal(
    (await registryError(shared.imageMetadata(ref))).failure,
    'denied',
    'the Basic answer cached for alice does not serve an anonymous pull',
  );
  t.equal(await shared.resolveTag(parseImageReference(ref), own), digest, 'HEAD with credentials');
  t.equal((await registryError(shared.resolveTag(parseImageReference(ref)))).failure, 'denied', 'HEAD without');
  const fallback = createRegistryClient({ insecureHosts: [locked.host], credentialsFor: () => alice });
  t.equal(
    (await fallback.imageMetadata(ref, { credentials: () => Promise.resolve(undefined) })).digest,
    digest,
    'no own credentials → the client default',
  );
  t.equal(
    (await registryError(shared.resolveTag(parseImageReference(`${locked.host}/private/solo:v2`), own))).failure,
    'not_found',
    'HEAD of a missing tag',
  );
});

t.test('stopped registry → unavailable', async (t) => {
  const gone = await startRegistry();
  await gone.close();
  const err = await registryError(createRegistryClient({ insecureHosts: [gone.host] }).imageMetadata(`${gone.host}/a/b:c`));
  t.equal(err.failure, 'unavailable');
  t.match(err.message, /ECONNREFUSED/);
});

t.test('a registry that never answers → timeout; a caller abort is passed through', async (t) => {
  const sockets = new Set<Socket>();
  const silent = createServer((s) => void sockets.add(s));
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((r) => silent.close(() => r()));
  });
  const silentHost = `127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const slowClient = createRegistryClient({ insecureHosts: [silentHost], timeoutMs: 200 });
  const err = await registryError(slowClient.imageMetadata(`${silentHost}/a/b:c`));
  t.equal(err.failure, 'timeout');

  const controller = new AbortController();
  const reason = new Error('reconcile cancelled');
  const pending = createRegistryClient({ insecureHosts: [silentHost] }).imageMetadata(`${silentHost}/a/b:c`, { signal: controller.signal });
  controller.abort(reason);
  await t.rejects(pending, reason);
});

t.test('Bearer token flow: token fetched with credentials, cached until expires_in', async (t) => {
  const proxy = await startRegistryProxy({ upstream: registry.url, bearer: { users: { bob: 'pw' }, expiresIn: 60 } });
  t.teardown(() => proxy.close());
  let clock = 1_000_000;
  const bearerClient = createRegistryClient({
    insecureHosts: [proxy.host],
    credentialsFor: () => ({ username: 'bob', password: 'pw' }),
    now: () => clock,
  });
  const ref = `${proxy.host}/team/multi:2.0`;
  const tokenRequests = (): number => proxy.log.filter((r) => r.path.startsWith('/token')).length;

  t.strictSame(await bearerClient.imageMetadata(ref), {
    digest: multi.digest,
    platformDigest: multi.platforms['linux/amd64'],
    labels: { arch: 'amd64' },
  });
  t.equal(tokenRequests(), 1);
  const tokenRequest = proxy.log.find((r) => r.path.startsWith('/token'))!;
  t.match(tokenRequest.path, /service=test-registry/);
  t.match(tokenRequest.path, /scope=repository%3Ateam%2Fmulti%3Apull/);
  t.match(tokenRequest.authorization, /^Basic /, 'credentials go to the token realm');

  await bearerClient.imageMetadata(ref);
  t.equal(tokenRequests(), 1, 'second pull reuses the token');
  t.equal(proxy.log.filter((r) => r.status === 401).length, 1, 'only the first request was challenged');

  clock += 61_000;
  await bearerClient.imageMetadata(ref);
  t.equal(tokenRequests(), 2, 'expired token is replaced');

  const anonymous = createRegistryClient({ insecureHosts: [proxy.host] });
  const err = await registryError(anonymous.imageMetadata(ref));
  t.equal(err.failure, 'denied', 'token endpoint refuses anonymous');
  t.match(err.message, /add an imagePullSecret or REGISTRY_AUTH_FILE/);
});

t.test('blob redirect to another host drops the Authorization header', async (t) => {
  const proxy = await startRegistryProxy({ upstream: registry.url, bearer: {}, redirectBlobs: true });
  t.teardown(() => proxy.close());
  const redirected = createRegistryClient({ insecureHosts: [proxy.host, proxy.storageHost] });
  t.strictSame(await redirected.imageMetadata(`${proxy.host}/team/app:v1`), {
    digest: appDigest,
    labels: { 'org.opencontainers.image.source': 'https://github.com/acme/app', 'org.opencontainers.image.revision': 'abc123' },
  });
  const redirect = proxy.log.find((r) => r.status === 307);
  const storage = proxy.log.find((r) => r.path.startsWith('/storage/'));
  t.ok(redirect, 'the blob was redirected');
  t.match(redirect?.authorization, /^Bearer /, 'the registry itself got the token');
  t.equal(storage?.host, proxy.storageHost);
  t.equal(storage?.status, 200);
  t.equal(storage?.authorization, undefined, 'storage host got no Authorization');

  const strict = createRegistryClient({ insecureHosts: [proxy.host] });
  const err = await registryError(strict.imageMetadata(`${proxy.host}/team/app:v1`));
  t.equal(err.failure, 'tls', 'plain-HTTP redirect target must be listed too');
});

t.test('the launcher names the Debian package when the binary is missing', async (t) => {
  await t.rejects(startRegistry({ binary: 'docker-registry-not-installed' }), /install the Debian package docker-registry/);
});
