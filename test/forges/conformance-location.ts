/**
 * The part of the forge conformance suite about where a forge lives and whom it talks to: a forge installed
 * under a sub-path, a forge told apart from another on its host name by its port, and redirects (followed on
 * the forge's own origin only, refused elsewhere before anything, a token above all, is sent there; bounded).
 */
import type { Test } from 'tap';
import { isRetryable } from '../../src/common/errors.js';
import { MAX_FORGE_REDIRECTS } from '../../src/forges/forge-fetch.js';
import type { ForgeHost } from '../../src/metadata/forge-route.js';
import type { DesiredState } from '../../src/lifecycle/status-plan.js';
import { startCaptureServer } from '../harness/capture-server.js';
import { OWNER, REPO, SHA, openWorld, type ConformanceDriver, type Published, type World } from './conformance-rig.js';

async function publish(w: World, p: Published, desired: DesiredState): Promise<readonly string[] | Error> {
  try {
    return (await w.forge.publish(p.target, p.origin, desired, desired)).sent;
  } catch (err) {
    return err as Error;
  }
}

/** A rollout to the end, and what the simulator shows: the driver's rollout writes, live. */
async function rollsOut(t: Test, w: World, p: Published, rollout: string[]): Promise<void> {
  t.same(await publish(w, p, 'in_progress'), ['in_progress']);
  t.same(await publish(w, p, 'success'), ['success']);
  t.same(w.writes(), rollout, 'the forge’s rollout writes, on its repository');
  t.same(w.shown(), [`${p.target.environment} ${SHA.slice(0, 7)} success`]);
  t.same(w.sim.violations, []);
}

const webUrl = (h: ForgeHost, host = h.host) => `${h.scheme ?? 'https'}://${host}${h.basePath ?? ''}`;

export function locationConformance<S extends R, R>(t: Test, driver: ConformanceDriver<S, R>): void {
  const { rollout } = driver.expected;

  t.test('under a sub-path: a repository URL below it is its repository; one outside it is on no forge', async (t) => {
    const w = await openWorld(t, driver, { pathPrefix: '/forge' });
    const p = w.target();
    t.same([p.target.owner, p.target.repo], [OWNER, REPO], 'the base path is not part of the repository');
    await rollsOut(t, w, p, rollout);
    // GitHub Enterprise Server has its API under /api/v3 but its repositories at the root of its host.
    if ((w.host.basePath ?? '') !== '')
      t.match(
        w.resolve(`${w.host.scheme ?? 'https'}://${w.host.host}/${OWNER}/${REPO}`),
        /is on .* but not below .*: it is on no configured forge/,
      );
  });

  t.test('a forge is its host and its port: another port on its host name is another forge, or none', async (t) => {
    const w = await openWorld(t, driver);
    const own = new URL(webUrl(w.host));
    const port = Number(own.port || (own.protocol === 'http:' ? 80 : 443));
    const other = `${own.hostname}:${port === 3000 ? 3001 : 3000}`;
    const decoy: ForgeHost = {
      forge: driver.driver.name === 'github' ? 'forgejo' : 'github',
      host: other,
      scheme: w.host.scheme ?? 'https',
    };
    t.match(w.resolve(`${webUrl(w.host, other)}/${OWNER}/${REPO}`), /is not on /, 'another port of its host name is not this forge');
    const p = w.resolve(`${webUrl(w.host)}/${OWNER}/${REPO}`, [decoy, w.host]);
    if (typeof p === 'string') return void t.fail(p);
    t.equal(p.target.forge, driver.driver.name, 'its own port routes to it, though a forge on another port comes first');
    await rollsOut(t, w, p, rollout);
  });

  t.test('a redirect on the forge’s own origin is followed: 307 on a write, 301 on a read', async (t) => {
    const w = await openWorld(t, driver);
    w.sim.inject({ path: REPO, method: 'POST', redirect: 307, to: w.origin });
    w.sim.inject({ path: REPO, method: 'GET', redirect: 301, to: w.origin });
    await rollsOut(t, w, w.target(), rollout);
    const redirected = w.sim.requests.filter((r) => r.status === 307 || r.status === 301).map((r) => `${r.status} ${r.method}`);
    t.same([...new Set(redirected)].sort(), ['301 GET', '307 POST'], 'a read and a write were redirected, and repeated');
  });

  t.test('a redirect to another origin is refused: nothing, and no token, reaches it', async (t) => {
    const w = await openWorld(t, driver);
    const elsewhere = await startCaptureServer();
    t.teardown(() => elsewhere.close());
    w.sim.inject({ path: REPO, redirect: 307, to: elsewhere.origin });
    const p = w.target();
    const failed = await publish(w, p, 'in_progress');
    t.type(failed, Error, 'the attempt fails');
    t.match((failed as Error).message, /redirected \(307\) to http:\/\/127\.0\.0\.1:\d+: refused/, 'and says where it was sent');
    t.ok(isRetryable(failed), 'retried later, as an unreachable forge is');
    t.same(elsewhere.requests, [], 'the other origin saw no request');
    t.same(await publish(w, p, 'in_progress'), ['in_progress'], 'the forge itself still answers');
    t.same(await publish(w, p, 'success'), ['success']);
    t.same(w.writes(), rollout);
  });

  t.test('redirects are bounded', async (t) => {
    const w = await openWorld(t, driver);
    w.sim.inject({ path: REPO, redirect: 307, to: w.origin, times: Infinity });
    const failed = await publish(w, w.target(), 'in_progress');
    t.match((failed as Error).message, new RegExp(`redirected more than ${MAX_FORGE_REDIRECTS} times`));
    // Each request the publish made (some in parallel) is followed at most MAX_FORGE_REDIRECTS times, then given up.
    const hops = new Map<string, number>();
    for (const r of w.sim.requests.filter((r) => r.status === 307))
      hops.set(`${r.method} ${r.path}`, (hops.get(`${r.method} ${r.path}`) ?? 0) + 1);
    t.ok(hops.size > 0, 'redirected');
    t.same(Math.max(...hops.values()), MAX_FORGE_REDIRECTS + 1, 'a request and its bounded follows, never more');
    t.same(w.writes(), []);
  });
}
