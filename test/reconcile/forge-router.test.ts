import t from 'tap';
import { pino } from 'pino';
import type { DesiredState } from '../../src/lifecycle/status-plan.js';
import type { ForgeName } from '../../src/lifecycle/identity.js';
import type { ReportTarget } from '../../src/metadata/resolve-target.js';
import { laneOf, type ForgePublished } from '../../src/forges/forge.js';
import { ForgeRouter, type ForgeLane } from '../../src/reconcile/forge-router.js';
import type { DeploymentRow, Origin } from '../../src/store/deployment-store.js';
import { REF, candidate, row } from './plan-fixtures.js';

type Call = [forge: ForgeName, method: 'publish' | 'retire', what: string];

/** A lane that records its calls under its forge's name and answers what it was given. */
function recordingLane(forge: ForgeName, calls: Call[]): ForgeLane {
  return {
    publish: (target, _origin, desired, description) => {
      calls.push([forge, 'publish', `${target.repo}:${desired}:${description}`]);
      return Promise.resolve({ sent: [desired], superseded: forge === 'github' ? 1 : 0 });
    },
    retire: (r, description) => {
      calls.push([forge, 'retire', `${r.repo}:${description}`]);
      return Promise.resolve(true);
    },
  };
}

/** A router over the given forges, with its warnings kept. */
function rig(forges: ForgeName[]) {
  const calls: Call[] = [];
  const warnings: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void warnings.push(JSON.parse(line) as Record<string, unknown>) });
  const lanes = Object.fromEntries(forges.map((f) => [f, recordingLane(f, calls)]));
  return { router: new ForgeRouter(lanes, log), calls, warnings };
}

const on = (forge: ForgeName, name: string): { target: ReportTarget; origin: Origin } => {
  const c = candidate(name);
  return { target: { ...c.target, forge }, origin: c.origin };
};
const rowOn = (forge: ForgeName, name: string): DeploymentRow => ({ ...row(name), forge, deploymentId: forge === 'github' ? 1 : null });

t.test('publish goes to the lane of target.forge, cleanup to the lane of row.forge', async (t) => {
  const { router, calls, warnings } = rig(['github', 'forgejo']);
  const fj = on('forgejo', 'shop');
  t.same(await router.publish(fj.target, fj.origin, 'in_progress', 'Progressing'), { sent: ['in_progress'], superseded: 0 });
  const gh = on('github', 'web');
  t.same(await router.publish(gh.target, gh.origin, 'success', 'Done'), { sent: ['success'], superseded: 1 });
  t.equal(await router.retire(rowOn('forgejo', 'shop'), 'pruned'), true);
  t.equal(await router.retire(rowOn('github', 'web'), 'source deleted'), true);
  t.same(calls, [
    ['forgejo', 'publish', 'shop:in_progress:Progressing'],
    ['github', 'publish', 'web:success:Done'],
    ['forgejo', 'retire', 'shop:pruned'],
    ['github', 'retire', 'web:source deleted'],
  ]);
  t.same(warnings, []);
});

t.test('a row of a forge no longer configured: false, one warning, no lane called', async (t) => {
  const { router, calls, warnings } = rig(['github']);
  const r = rowOn('forgejo', 'shop');
  t.equal(await router.retire(r, 'pruned'), false);
  t.same(calls, []);
  t.equal(warnings.length, 1);
  t.match(warnings[0], { level: 40, forge: 'forgejo', repo: 'acme/shop', sha: r.sha, msg: /forge is not configured/ });
  t.equal(await rig(['forgejo']).router.retire(rowOn('github', 'web'), 'x'), false, 'and the other way round');
});

t.test('publishing to a forge that is not configured is a wiring fault: it throws, nothing is sent', async (t) => {
  const { router, calls } = rig(['github']);
  const fj = on('forgejo', 'shop');
  await t.rejects(async () => router.publish(fj.target, fj.origin, 'success', 'Done'), {
    message: 'no forgejo configured for this target',
  });
  const none = rig([]);
  const gh = on('github', 'web');
  await t.rejects(async () => none.router.publish(gh.target, gh.origin, 'success', 'Done'), { message: /no github configured/ });
  t.same(calls, []);
});

t.test('laneOf: publish through the guarded publisher and count; retire through the plain one', async (t) => {
  const seen: unknown[] = [];
  const guarded = {
    publish: (target: ReportTarget, origin: Origin, desired: DesiredState, description: string) => {
      seen.push(['guarded', target.repo, origin.source, desired, description]);
      return Promise.resolve({ states: ['queued', desired], older: [11, 12, 13] });
    },
  };
  const plain = {
    retire: (r: DeploymentRow, description: string) => {
      seen.push(['plain', r.repo, description]);
      return Promise.resolve(false);
    },
  };
  const count = (r: { states: string[]; older: number[] }): ForgePublished => ({ sent: r.states, superseded: r.older.length });
  const lane = laneOf(guarded, plain, count);
  const gh = on('github', 'web');
  t.same(await lane.publish(gh.target, gh.origin, 'failure', 'Crashed'), { sent: ['queued', 'failure'], superseded: 3 });
  t.equal(await lane.retire(rowOn('github', 'web'), 'gone'), false, "the plain publisher's answer");
  t.same(seen, [
    ['guarded', 'web', REF, 'failure', 'Crashed'],
    ['plain', 'web', 'gone'],
  ]);
  const failing = laneOf({ publish: () => Promise.reject(new Error('refused')) }, plain, count);
  await t.rejects(failing.publish(gh.target, gh.origin, 'success', 'x'), { message: 'refused' }, 'a refusal passes through uncounted');
});

t.test("prepare: each forge's targets to its lane at once; a lane without it, or failing, changes nothing", async (t) => {
  const asked: string[] = [];
  const lane = (forge: ForgeName, prepare?: ForgeLane['prepare']): ForgeLane => ({
    ...recordingLane(forge, []),
    ...(prepare ? { prepare } : {}),
  });
  const router = new ForgeRouter(
    {
      forgejo: lane('forgejo', (targets) => {
        asked.push(`forgejo ${targets.map((x) => x.repo).join(',')}`);
        return Promise.resolve();
      }),
      github: lane('github'),
      gitlab: lane('gitlab', () => Promise.reject(new Error('503'))),
    },
    pino({ level: 'silent' }),
  );
  await router.prepare([on('forgejo', 'shop'), on('github', 'web'), on('forgejo', 'api'), on('gitlab', 'docs')].map((x) => x.target));
  t.same(asked, ['forgejo shop,api']);
  const prepared: string[] = [];
  const lanePrepared = laneOf(
    {
      publish: () => Promise.resolve({ states: [], older: [] }),
      prepare: (targets) => {
        prepared.push(...targets.map((x) => x.repo));
        return Promise.resolve();
      },
    },
    { retire: () => Promise.resolve(false) },
    (r: { states: string[]; older: number[] }): ForgePublished => ({ sent: r.states, superseded: r.older.length }),
  );
  await lanePrepared.prepare?.([on('forgejo', 'shop').target]);
  t.same(prepared, ['shop'], "laneOf passes the guarded publisher's prepare on");
});
