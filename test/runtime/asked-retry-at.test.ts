import t from 'tap';
import { askedRetryAt } from '../../src/runtime/worker.js';
import { ForgeError } from '../../src/common/errors.js';
import { RetryLater } from '../../src/reconcile/reconcile-source.js';

t.test('askedRetryAt: the latest Retry-After a failure or its causes carry', (t) => {
  const asked = new ForgeError('429', 429, { retryAt: 5_000 });
  const rows: Array<[string, unknown, number | undefined]> = [
    ['a ForgeError with Retry-After', asked, 5_000],
    ['wrapped by RetryLater (the reconcile)', new RetryLater('1 step failed', { cause: asked }), 5_000],
    ['the later of two', new ForgeError('503', 503, { retryAt: 9_000, cause: asked }), 9_000],
    ['none named', new ForgeError('500', 500), undefined],
    ['not an error', 'boom', undefined],
  ];
  for (const [name, err, want] of rows) t.equal(askedRetryAt(err), want, name);
  t.end();
});
