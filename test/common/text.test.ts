import t from 'tap';
import { boundedValue, byText, MAX_VALUE_CHARS, oneLine, quoted, wasCut } from '../../src/common/text.js';

t.test('oneLine: whitespace folded, cut at a code point with …', (t) => {
  t.equal(oneLine('  a\n\tb  ', 10), 'a b');
  t.equal(oneLine('abcdef', 6), 'abcdef');
  t.equal(oneLine('abcdefg', 6), 'abcde…');
  t.equal(oneLine('😀'.repeat(6), 6), '😀'.repeat(6), 'six code points in twelve UTF-16 units fit');
  t.equal(oneLine('😀'.repeat(7), 6), `${'😀'.repeat(5)}…`, 'never half a surrogate pair');
  t.end();
});

t.test('boundedValue and wasCut', (t) => {
  t.equal(boundedValue('short'), 'short');
  const cut = boundedValue('x'.repeat(MAX_VALUE_CHARS + 1));
  t.equal(cut.length, MAX_VALUE_CHARS);
  t.ok(wasCut(cut));
  t.notOk(wasCut('x'.repeat(MAX_VALUE_CHARS)), 'a value of exactly the cap is kept whole');
  t.equal(boundedValue('x'.repeat(MAX_VALUE_CHARS)), 'x'.repeat(MAX_VALUE_CHARS));
  t.end();
});

t.test('quoted: short values whole, long ones by their start and length, control characters escaped', (t) => {
  t.equal(quoted('abc'), '"abc"');
  t.equal(quoted('a\nb'), '"a\\nb"');
  t.equal(quoted('q'.repeat(200)), `"${'q'.repeat(80)}…" (200 characters)`);
  t.end();
});

t.test('byText: by code units, the same on every machine and locale', (t) => {
  const rows: Array<[string, string, number]> = [
    ['a', 'a', 0],
    ['a', 'b', -1],
    ['b', 'a', 1],
    ['B', 'a', -1],
    ['prod', 'production', -1],
    ['', 'a', -1],
    ['é', 'f', 1],
  ];
  for (const [a, b, want] of rows) t.equal(byText(a, b), want, `${a} ? ${b}`);
  t.same(['staging', 'Prod', 'dev', 'prod'].sort(byText), ['Prod', 'dev', 'prod', 'staging']);
  t.end();
});
