/** The features' hooks before a publish: each asked in order, what they answer kept for after the forge accepted. */
import t from 'tap';
import { beforePublish, type ReconcileHooks } from '../../src/reconcile/reconcile-hooks.js';
import { candidate } from './plan-fixtures.js';

t.test('each hook in order, awaited; only the answers that want the outcome are kept', async (t) => {
  const seen: string[] = [];
  const hooks: ReconcileHooks[] = [
    {
      beforePublish: async () => {
        await new Promise((r) => setTimeout(r, 5));
        seen.push('first');
        return (state) => ({ code: 'c', reason: state });
      },
    },
    { beforePublish: () => void seen.push('second') },
    { retired: () => undefined },
  ];
  const after = await beforePublish(hooks, { ...candidate('web'), state: 'success', description: 'Done' });
  t.same(seen, ['first', 'second'], 'the first finished before the second began');
  t.equal(after.length, 1);
  t.same(after[0]?.('success'), { code: 'c', reason: 'success' });
  t.same(await beforePublish(undefined, { ...candidate('web'), state: 'success', description: 'Done' }), [], 'no hooks: none');
});
