import t from 'tap';
import { selectorMatches, selectorString } from '../../src/flux/label-selector.js';
import { labelSelector as serverSelects } from '../harness/fake-kube/selectors.js';

const FULL = {
  matchLabels: { app: 'web' },
  matchExpressions: [
    { key: 'env', operator: 'In', values: ['a', 'b'] },
    { key: 'x', operator: 'NotIn', values: ['c'] },
    { key: 'has', operator: 'Exists' },
    { key: 'not', operator: 'DoesNotExist' },
  ],
};

t.test('selector strings', (t) => {
  t.equal(selectorString({ matchLabels: { app: 'web', tier: 'front' } }), 'app=web,tier=front');
  t.equal(selectorString(FULL), 'app=web,env in (a,b),x notin (c),has,!not');
  t.equal(selectorString({}), undefined, 'empty selector selects nothing here (not every pod)');
  t.equal(selectorString(undefined), undefined);
  t.equal(selectorString({ matchExpressions: [{ key: 'a', operator: 'Weird' }] }), undefined);
  t.end();
});

t.test('local matching agrees with the API server on the same selector', (t) => {
  const base = { app: 'web', env: 'a', has: '' };
  const cases: Array<[string, Record<string, string>, boolean]> = [
    ['every term holds', base, true],
    ['matchLabels value differs', { ...base, app: 'api' }, false],
    ['matchLabels key missing', { env: 'a', has: '1' }, false],
    ['In: other value', { ...base, env: 'z' }, false],
    ['In: key missing', { app: 'web', has: '1' }, false],
    ['NotIn: listed value', { ...base, x: 'c' }, false],
    ['NotIn: other value', { ...base, x: 'd' }, true],
    ['Exists: missing', { app: 'web', env: 'b' }, false],
    ['DoesNotExist: present', { ...base, not: 'here' }, false],
  ];
  const server = serverSelects(selectorString(FULL)!);
  for (const [name, labels, want] of cases) {
    t.equal(selectorMatches(FULL, labels), want, name);
    t.equal(server(labels), want, `${name} (fake API server)`);
  }
  t.equal(selectorMatches({}, base), false, 'an empty selector matches nothing here');
  t.equal(selectorMatches({ matchExpressions: [{ key: 'a', operator: 'Weird' }] }, { a: '1' }), false);
  t.end();
});
