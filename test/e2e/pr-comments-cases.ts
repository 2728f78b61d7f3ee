/**
 * The pull request comment end-to-end cases every forge runs against its simulator (a comment on GitHub and
 * Forgejo, a merge request note on GitLab): the preview's lifecycle, the restarts at each write point and two
 * clusters. Each forge's test names its simulator, its request paths and its own extra checks.
 */
import type { Test } from 'tap';
import { join } from 'node:path';
import type { BridgeProcess } from '../harness/bridge-process.js';
import type { RequestHook } from '../harness/github-sim.js';
import type { World } from '../harness/world.js';
import { PROGRESSING, READY } from './scenario.js';
import { ENV, crashAt, event, idle, putPreview } from './pr-comments-scenario.js';

/** One forge's side of a world with pull request 12 open and the preview's workload pointing at it. */
export interface CommentSide {
  world: World;
  sim: {
    hook(hook: RequestHook): void;
    readonly requests: ReadonlyArray<{ method: string; path: string }>;
    readonly violations: readonly unknown[];
  };
  /** The bodies of pull request 12's comments on the simulator, oldest first. */
  bodies: () => string[];
  /** How many comment writes the simulator applied. */
  writes: () => number;
  /** `comment` or `note`, for the messages. */
  noun: string;
}

/**
 * One bridge sees the preview rolling out, live and gone: one comment, without a link until live, edited in
 * place; 20 repeated events write nothing; three writes in all (one create, two edits: the minimum,
 * BENCHMARKS.md). `atLive` runs once the comment says live and the queue is idle, before the repeated events.
 */
export async function previewLifecycle(
  t: Test,
  side: CommentSide,
  atLive: (bridge: BridgeProcess) => Promise<void> = async () => {},
): Promise<void> {
  const { world, bodies, writes, noun } = side;
  putPreview(world, PROGRESSING);
  const bridge = await world.bridge(ENV);
  await event(bridge);
  await bridge.waitFor(`the ${noun}`, () => bodies()[0]?.includes('rolling out'));
  t.notMatch(bodies()[0], /https:\/\/pr-12/, 'no link while rolling out');
  putPreview(world, READY);
  await event(bridge);
  await bridge.waitFor('live', () => bodies()[0]?.includes('| live |'));
  t.match(bodies()[0], /\(https:\/\/pr-12\.preview\.example\.com\/\)/);
  t.match(bodies()[0], /^<!-- github-deployment-bridge:cluster=/, 'the marker, hidden as an HTML comment');
  await idle(bridge);
  await atLive(bridge);
  const live = writes();
  t.equal(live, 2, 'one create, one edit');
  for (let i = 0; i < 20; i++) await event(bridge);
  await idle(bridge);
  t.equal(writes(), live, `20 repeated events: no ${noun} write`);
  world.kube.delete('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'flux-system', 'web-pr-12');
  await bridge.waitFor('gone', () => bodies()[0]?.includes('The preview is gone'), 30_000);
  t.notMatch(bodies()[0], /https:\/\/pr-12/, 'no link once gone');
  t.equal(bodies().length, 1, `edited, never a second ${noun}`);
  await idle(bridge);
  t.equal(writes(), 3, `three ${noun} writes for the whole preview lifecycle`);
}

/** A write point at which a bridge is killed: before or after the create is applied, after an edit. */
export interface CrashPoint {
  name: string;
  method: string;
  path: RegExp;
  when: 'before' | 'after';
  /** The preview is live before the first bridge starts (a create is the first write); else it rolls out first (an edit). */
  readyFirst: boolean;
}

/**
 * A test per crash point: a first bridge killed there (after its comment exists, for an edit point), then a
 * second one on the same database, until its comment says live and its queue is idle. Exactly one comment after,
 * and after a crash at a create, a look for it (a GET of `list`) before making one. `title` names the test.
 */
export function restartCases(
  t: Test,
  crashes: readonly CrashPoint[],
  list: RegExp,
  title: (crash: CrashPoint) => string,
  open: (t: Test) => Promise<CommentSide>,
): void {
  for (const crash of crashes) {
    t.test(title(crash), async (t) => {
      const { world, sim, bodies, noun } = await open(t);
      putPreview(world, crash.readyFirst ? READY : PROGRESSING);
      const first = await world.bridge(ENV);
      if (!crash.readyFirst) {
        await event(first);
        await first.waitFor(`the ${noun}`, () => bodies().length === 1);
        putPreview(world, READY);
      }
      await crashAt(sim, first, { method: crash.method, path: crash.path, when: crash.when });
      const second = await world.bridge(ENV);
      await event(second);
      await second.waitFor('live', () => bodies()[0]?.includes('| live |'));
      await idle(second);
      t.equal(bodies().length, 1, `exactly one ${noun}`);
      if (crash.method === 'POST')
        t.ok(
          sim.requests.some((r) => r.method === 'GET' && list.test(r.path)),
          `after the restart it looked for its ${noun} before making one`,
        );
      t.same(sim.violations, []);
    });
  }
}

/** Two bridges (clusters eu-1 and us-1, a database each) report the live preview: two comments, one per cluster's marker. */
export async function twoClusters(t: Test, side: CommentSide): Promise<void> {
  const { world, bodies, noun } = side;
  putPreview(world, READY);
  const eu = await world.bridge({ ...ENV, CLUSTER_NAME: 'eu-1', DATABASE_PATH: join(world.dir, 'eu.db') });
  const us = await world.bridge({ ...ENV, CLUSTER_NAME: 'us-1', DATABASE_PATH: join(world.dir, 'us.db') });
  await event(eu);
  await event(us);
  await eu.waitFor(`two ${noun}s`, () => bodies().length === 2 && bodies().every((b) => b.includes('| live |')));
  await idle(eu);
  await idle(us);
  t.same(
    bodies()
      .map((b) => b.split('\n')[0] ?? '')
      .sort(),
    ['<!-- github-deployment-bridge:cluster=eu-1 -->', '<!-- github-deployment-bridge:cluster=us-1 -->'],
  );
  t.same(side.sim.violations, []);
}
