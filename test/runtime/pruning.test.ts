/** The runtime's one prune: at start and every interval; a failing database goes to the storage tracker, not up. */
import pino from 'pino';
import t from 'tap';
import { Pruning } from '../../src/runtime/pruning.js';
import type { Pruned } from '../../src/store/retention.js';

const none: Pruned = {
  sources: 0,
  skips: 0,
  image_labels: 0,
  image_tags: 0,
  forge_refusals: 0,
  deployments: 0,
  deployment_outcomes: 0,
  commit_times: 0,
  environment_kinds: 0,
  pr_comments: 0,
  pr_comment_rows: 0,
};
const log = pino({ level: 'silent' });

t.test('prunes at start, tells the counts, stops', (t) => {
  const told: Pruned[] = [];
  let runs = 0;
  const p = new Pruning({ prune: () => ({ ...none, sources: ++runs }), onPruned: (x) => told.push(x), log, intervalMs: 3_600_000 });
  p.start();
  p.stop();
  t.equal(runs, 1, 'once at start');
  t.same(told, [{ ...none, sources: 1 }]);
  t.end();
});

t.test('a storage failure is reported to the tracker and the next prune still runs', (t) => {
  const failed: string[] = [];
  let ok = 0;
  let fail = true;
  const p = new Pruning({
    prune: () => {
      if (fail) throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });
      return none;
    },
    storage: { failed: (op) => (failed.push(op), 'full'), succeeded: () => ok++ },
    log,
  });
  t.equal(p.runOnce(), undefined);
  t.same(failed, ['prune old rows']);
  fail = false;
  t.same(p.runOnce(), none);
  t.equal(ok, 1, 'a prune that goes through tells the tracker writes work');
  t.end();
});
