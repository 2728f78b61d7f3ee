/**
 * The label cache on SQLite in front of the real client and registry; the counting proxy's log
 * shows every request that reached the registry, by method.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createCachedLabelSource } from '../../src/oci/cached-label-source.js';
import { createRegistryClient } from '../../src/oci/registry-client.js';
import type { LabelSource, RegistryClient } from '../../src/oci/oci-types.js';
import { type Db } from '../../src/store/database.js';
import { ImageCache } from '../../src/store/image-cache.js';
import { pushImage, pushIndex } from '../harness/push-image.js';
import { startRegistry } from '../harness/registry.js';
import { startRegistryProxy, type RegistryProxy } from './registry-proxy.js';
import { openDatabase } from '../harness/database.js';

const dir = mkdtempSync(join(tmpdir(), 'label-cache-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const registry = await startRegistry();
t.teardown(() => registry.close());
const proxy = await startRegistryProxy({ upstream: registry.url });
t.teardown(() => proxy.close());

let clock = 5_000_000;
const tick = (ms: number): void => void (clock += ms);
let dbCount = 0;

interface Setup {
  cache: LabelSource;
  db: Db;
  /** Methods of the requests that reached the proxy since setup (or the last call). */
  sent: () => string[];
}

function setup(o: { proxy?: RegistryProxy; db?: Db; client?: RegistryClient; tagTtlMs?: number; failureTtlMs?: number } = {}): Setup {
  const front = o.proxy ?? proxy;
  const db = o.db ?? openDatabase(join(dir, `cache-${dbCount++}.db`));
  const client = o.client ?? createRegistryClient({ insecureHosts: [front.host] });
  const cache = createCachedLabelSource(client, new ImageCache(db), {
    tagTtlMs: o.tagTtlMs ?? 60_000,
    failureTtlMs: o.failureTtlMs ?? 30_000,
    now: () => clock,
  });
  let seen = front.log.length;
  return {
    cache,
    db,
    sent: () => {
      const out = front.log.slice(seen).map((r) => r.method);
      seen = front.log.length;
      return out;
    },
  };
}

t.test("a tag costs one HEAD per TTL; a digest's labels are read once", async (t) => {
  await pushImage(registry.url, 'c/app', 'v1', { labels: { v: '1' } });
  const { cache, sent } = setup();
  const ref = `${proxy.host}/c/app:v1`;
  const first = await cache.imageMetadata(ref);
  t.strictSame(first.labels, { v: '1' });
  t.strictSame(sent(), ['HEAD', 'GET', 'GET'], 'HEAD for the tag, then manifest and config blob by digest');

  first.labels.v = 'mutated';
  tick(59_000);
  t.strictSame(await cache.imageMetadata(ref), { digest: first.digest, labels: { v: '1' } }, 'callers cannot alter the cache');
  t.strictSame(sent(), [], 'within the TTL: no request at all');

  tick(2_000);
  t.strictSame((await cache.imageMetadata(ref)).labels, { v: '1' });
  t.strictSame(sent(), ['HEAD'], 'after the TTL: one HEAD, no GET (the digest did not change)');

  await pushImage(registry.url, 'c/app', 'v1', { labels: { v: '2' } });
  tick(61_000);
  const moved = await cache.imageMetadata(ref);
  t.strictSame(moved.labels, { v: '2' }, 'a moved tag is seen after the TTL');
  t.not(moved.digest, first.digest);
  t.strictSame(sent(), ['HEAD', 'GET', 'GET']);

  tick(365 * 24 * 3600_000);
  t.strictSame((await cache.imageMetadata(`${proxy.host}/c/app@${first.digest}`)).labels, { v: '1' }, 'a digest is kept for good');
  t.strictSame(sent(), []);
});

t.test('digest references: index, platform manifest and blob once, then never; per platform', async (t) => {
  const idx = await pushIndex(
    registry.url,
    'c/multi',
    '1',
    [{ labels: { p: 'amd64' } }, { architecture: 'arm64', variant: 'v8', labels: { p: 'arm64' } }],
    { attestation: true },
  );
  const amd = setup();
  const ref = `${proxy.host}/c/multi@${idx.digest}`;
  t.strictSame(await amd.cache.imageMetadata(ref), {
    digest: idx.digest,
    platformDigest: idx.platforms['linux/amd64'],
    labels: { p: 'amd64' },
  });
  t.strictSame(amd.sent(), ['GET', 'GET', 'GET']);
  tick(10 * 24 * 3600_000);
  t.strictSame((await amd.cache.imageMetadata(ref)).labels, { p: 'amd64' });
  t.strictSame(amd.sent(), []);

  const arm = setup({
    db: amd.db,
    client: createRegistryClient({ insecureHosts: [proxy.host], platform: { os: 'linux', architecture: 'arm64' } }),
  });
  t.strictSame((await arm.cache.imageMetadata(ref)).labels, { p: 'arm64' }, 'another platform on the same database reads its own labels');
  t.strictSame(arm.sent(), ['GET', 'GET', 'GET']);
});

t.test('the cache survives a restart', async (t) => {
  await pushImage(registry.url, 'c/kept', 'v1', { labels: { k: 'v' } });
  const path = join(dir, 'restart.db');
  const before = setup({ db: openDatabase(path) });
  const tagged = `${proxy.host}/c/kept:v1`;
  const meta = await before.cache.imageMetadata(tagged);
  t.equal(before.sent().length, 3);
  before.db.close();

  const after = setup({ db: openDatabase(path) });
  t.teardown(() => after.db.close());
  tick(30_000);
  t.strictSame(await after.cache.imageMetadata(tagged), meta, 'tag within its TTL, from disk');
  t.strictSame(await after.cache.imageMetadata(`${proxy.host}/c/kept@${meta.digest}`), meta, 'digest, from disk');
  t.strictSame(after.sent(), [], 'zero requests after the restart');
  tick(31_000);
  await after.cache.imageMetadata(tagged);
  t.strictSame(after.sent(), ['HEAD'], 'the TTL counts from the check before the restart');
});

t.test('an anonymous "denied" never hides an image that credentials can read', async (t) => {
  const alice = { username: 'alice', password: 'pw' };
  const locked = await startRegistry({ auth: 'htpasswd', users: { alice: alice.password } });
  t.teardown(() => locked.close());
  const front = await startRegistryProxy({ upstream: locked.url });
  t.teardown(() => front.close());
  await pushImage(locked.url, 'private/app', 'v1', { labels: { secret: 'yes' }, auth: alice });
  const { cache, sent } = setup({ proxy: front });
  const ref = `${front.host}/private/app:v1`;
  const nobody = { credentials: () => undefined };
  const withAlice = { credentials: () => alice };

  await t.rejects(cache.imageMetadata(ref, nobody), { name: 'RegistryError', failure: 'denied' });
  t.ok(sent().length > 0);
  t.strictSame((await cache.imageMetadata(ref, withAlice)).labels, { secret: 'yes' }, 'right after, credentials read it');
  t.strictSame(sent(), ['HEAD', 'HEAD', 'GET', 'GET'], 'challenge, then HEAD, manifest and blob with Basic');
  await t.rejects(cache.imageMetadata(`${front.host}/private/app:v2`, nobody), { name: 'RegistryError', failure: 'denied' });
  const cost = sent().length;
  await t.rejects(cache.imageMetadata(`${front.host}/private/app:v2`, nobody), { name: 'RegistryError', failure: 'denied' });
  t.equal(sent().length, 0, `the same denied question within the failure TTL costs nothing (first cost ${cost})`);
  let lookups = 0;
  await cache.imageMetadata(ref, { credentials: () => (lookups++, alice) });
  t.equal(lookups, 0, 'credentials (Secrets) are not even looked up when the cache answers');
});

t.test('not found is remembered briefly; outages are not remembered', async (t) => {
  const { cache, sent } = setup();
  const ref = `${proxy.host}/c/absent:v1`;
  const notFound = { name: 'RegistryError', failure: 'not_found' };
  await t.rejects(cache.imageMetadata(ref), notFound);
  t.strictSame(sent(), ['HEAD']);
  await t.rejects(cache.imageMetadata(ref), notFound);
  t.strictSame(sent(), [], 'within the failure TTL: no request');
  tick(31_000);
  await t.rejects(cache.imageMetadata(ref), notFound);
  t.strictSame(sent(), ['HEAD']);

  const gone = await startRegistry();
  await gone.close();
  const down = createRegistryClient({ insecureHosts: [gone.host] });
  let asked = 0;
  const counting: RegistryClient = { ...down, resolveTag: (ref, o) => (asked++, down.resolveTag(ref, o)) };
  const outage = setup({ client: counting });
  const unavailable = { name: 'RegistryError', failure: 'unavailable' };
  await t.rejects(outage.cache.imageMetadata(`${gone.host}/a/b:c`), unavailable);
  await t.rejects(outage.cache.imageMetadata(`${gone.host}/a/b:c`), unavailable);
  t.equal(asked, 2, 'retryable failures are not cached: the registry is asked again');
});

t.test('names that mean the same image share one entry', async (t) => {
  await pushImage(registry.url, 'library/solo', 'latest', { labels: { k: 'v' } });
  const { cache, sent } = setup();
  await cache.imageMetadata(`${proxy.host}/library/solo`);
  t.equal(sent().length, 3);
  await cache.imageMetadata(`${proxy.host}/library/solo:latest`);
  t.strictSame(sent(), []);
});
