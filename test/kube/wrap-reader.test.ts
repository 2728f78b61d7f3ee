/** wrapReader: every read of a KubeReader goes through the one wrapper, with its arguments and its answer. */
import t from 'tap';
import type { KubeReader } from '../../src/kube/kube-types.js';
import { wrapReader } from '../../src/kube/wrap-reader.js';

const READS = [
  'getFluxObject',
  'listFluxObjects',
  'getWorkload',
  'listWorkloads',
  'getRoutingObject',
  'listRoutingObjects',
  'getNamespace',
  'getSecret',
  'getConfigMap',
  'getServiceAccountPullSecrets',
  'listPods',
] as const;

/** A reader whose every read answers `<name>(<args>)`, its `this` checked. */
function echoing(without: string[] = []): KubeReader {
  const reader: Record<string, unknown> = {};
  for (const name of READS) {
    if (without.includes(name)) continue;
    reader[name] = function (this: unknown, ...args: unknown[]) {
      if (this !== reader) return Promise.reject(new Error(`${name} called unbound`));
      return Promise.resolve(`${name}(${args.join(',')})`);
    };
  }
  return reader as unknown as KubeReader;
}

t.test('each read goes through the wrapper once, bound to its reader, with its arguments and answer', async (t) => {
  const seen: string[] = [];
  const wrapped = wrapReader(echoing(), (read) => async (...args) => {
    seen.push(String(args[0]));
    return read(...args);
  });
  t.same(Object.keys(wrapped).sort(), [...READS].sort(), 'every read, none added');
  const call = wrapped as unknown as Record<string, (...a: unknown[]) => Promise<string>>;
  for (const name of READS) t.equal(await call[name]!(`${name}-arg`, 2), `${name}(${name}-arg,2)`);
  t.same(
    seen,
    READS.map((n) => `${n}-arg`),
  );
});

t.test("an optional read the reader lacks stays absent; the wrapper's failure is the caller's", async (t) => {
  const wrapped = wrapReader(echoing(['getConfigMap']), () => () => Promise.reject(new Error('gate closed')));
  t.equal('getConfigMap' in wrapped, false);
  await t.rejects(wrapped.getNamespace('apps'), /gate closed/);
});
