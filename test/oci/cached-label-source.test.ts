/**
 * The label cache in front of the real client and registry; the proxy's log counts every
 * request that reached the registry.
 */
import t from 'tap';
import { createCachedLabelSource } from '../../src/oci/cached-label-source.js';
import { createRegistryClient } from '../../src/oci/registry-client.js';
import type { LabelSource } from '../../src/oci/types.js';
import { pushImage, pushIndex } from '../harness/push-image.js';
import { startRegistry } from '../harness/registry.js';
import { startRegistryProxy } from './registry-proxy.js';

const registry = await startRegistry();
t.teardown(() => registry.close());
const proxy = await startRegistryProxy({ upstream: registry.url });
t.teardown(() => proxy.close());

function setup(ttls: { tagTtlMs?: number; failureTtlMs?: number } = {}): { cache: LabelSource; tick(ms: number): void; requests(): number } {
  let clock = 5_000_000;
  const inner = createRegistryClient({ insecureHosts: [proxy.host] });
  const cache = createCachedLabelSource(inner, { ...ttls, now: () => clock });
  const start = proxy.log.length;
  return { cache, tick: (ms) => void (clock += ms), requests: () => proxy.log.length - start };
}

t.test('a tag is answered from memory within its TTL, asked again after', async (t) => {
  await pushImage(registry.url, 'c/app', 'v1', { labels: { v: '1' } });
  const { cache, tick, requests } = setup({ tagTtlMs: 60_000 });
  const ref = `${proxy.host}/c/app:v1`;
  const first = await cache.imageMetadata(ref);
  t.strictSame(first.labels, { v: '1' });
  const cost = requests();
  t.equal(cost, 2, 'manifest + config blob');

  first.labels.v = 'mutated';
  tick(59_000);
  t.strictSame(await cache.imageMetadata(`${proxy.host}/c/app:v1`), { digest: first.digest, labels: { v: '1' } }, 'callers cannot alter the cache');
  t.equal(requests(), cost, 'second call within TTL makes zero requests');

  await pushImage(registry.url, 'c/app', 'v1', { labels: { v: '2' } });
  tick(2_000);
  const moved = await cache.imageMetadata(ref);
  t.strictSame(moved.labels, { v: '2' }, 'after the TTL the moved tag is read again');
  t.not(moved.digest, first.digest);
  t.equal(requests(), 2 * cost);

  tick(365 * 24 * 3600_000);
  t.strictSame((await cache.imageMetadata(`${proxy.host}/c/app@${first.digest}`)).labels, { v: '1' }, 'a resolved digest is kept for good');
  t.equal(requests(), 2 * cost, 'digest lookups after a tag resolve make zero requests');
});

t.test('digest references are cached forever, including index digests', async (t) => {
  const idx = await pushIndex(registry.url, 'c/multi', '1', [{ labels: { p: 'amd64' } }, { architecture: 'arm64', variant: 'v8' }], { attestation: true });
  const { cache, tick, requests } = setup();
  const ref = `${proxy.host}/c/multi@${idx.digest}`;
  t.equal((await cache.imageMetadata(ref)).digest, idx.platforms['linux/amd64']);
  const cost = requests();
  t.equal(cost, 3, 'index + platform manifest + config blob');
  tick(10 * 24 * 3600_000);
  t.strictSame((await cache.imageMetadata(ref)).labels, { p: 'amd64' });
  t.equal(requests(), cost);
});

t.test('permanent failures are remembered briefly; outages are not', async (t) => {
  const { cache, tick, requests } = setup({ failureTtlMs: 30_000 });
  const ref = `${proxy.host}/c/absent:v1`;
  const notFound = { name: 'RegistryError', failure: 'not_found' };
  await t.rejects(cache.imageMetadata(ref), notFound);
  const cost = requests();
  t.ok(cost > 0);
  await t.rejects(cache.imageMetadata(ref), notFound);
  t.equal(requests(), cost, 'not_found within failureTtl makes zero requests');
  tick(31_000);
  await t.rejects(cache.imageMetadata(ref), notFound);
  t.equal(requests(), 2 * cost);

  const gone = await startRegistry();
  await gone.close();
  let calls = 0;
  const counting: LabelSource = {
    imageMetadata: (image, signal) => (calls++, createRegistryClient({ insecureHosts: [gone.host] }).imageMetadata(image, signal)),
  };
  const outage = createCachedLabelSource(counting);
  const unavailable = { name: 'RegistryError', failure: 'unavailable' };
  await t.rejects(outage.imageMetadata(`${gone.host}/a/b:c`), unavailable);
  await t.rejects(outage.imageMetadata(`${gone.host}/a/b:c`), unavailable);
  t.equal(calls, 2, 'retryable failures are not cached');
});

t.test('names that mean the same image share one entry', async (t) => {
  await pushImage(registry.url, 'library/solo', 'latest', { labels: { k: 'v' } });
  const { cache, requests } = setup();
  await cache.imageMetadata(`${proxy.host}/library/solo`);
  const cost = requests();
  await cache.imageMetadata(`${proxy.host}/library/solo:latest`);
  t.equal(requests(), cost);
});
