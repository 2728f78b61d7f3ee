/** A bridge's share of a write budget shared by several bridges on one identity, as tables. */
import t from 'tap';
import { parseShare, shareOf } from '../../../src/forges/github/budget-share.js';
import { parseBudget, type BudgetWindow } from '../../../src/forges/github/write-budget.js';

const PROBLEM = 'must be a share above 0 and at most 1 of the budget, such as 1/5, 0.2 or 20%';

t.test('parseShare: a fraction, a decimal or a percentage above 0 and at most 1', (t) => {
  const rows: Array<[string, number | string]> = [
    ['1', 1],
    ['1/5', 0.2],
    [' 1 / 3 ', 1 / 3],
    ['0.2', 0.2],
    ['.5', 0.5],
    ['20%', 0.2],
    ['12.5 %', 0.125],
    ['100%', 1],
    ['0', PROBLEM],
    ['0/5', PROBLEM],
    ['1/0', PROBLEM],
    ['6/5', PROBLEM],
    ['1.5', PROBLEM],
    ['150%', PROBLEM],
    ['-0.2', PROBLEM],
    ['a fifth', PROBLEM],
    ['', PROBLEM],
  ];
  for (const [text, want] of rows) {
    const got = parseShare(text);
    t.same(typeof got === 'number' ? got : got.problem, want, JSON.stringify(text));
  }
  t.end();
});

t.test("shareOf: each window's count × the share, rounded down, at least 1; durations unchanged", (t) => {
  const github = parseBudget('80/1m,500/1h') as BudgetWindow[];
  const text = (ws: BudgetWindow[]) => ws.map((w) => `${w.count}/${w.ms}`).join(',');
  const rows: Array<[number, string]> = [
    [1, '80/60000,500/3600000'],
    [1 / 2, '40/60000,250/3600000'],
    [1 / 5, '16/60000,100/3600000'],
    [1 / 3, '26/60000,166/3600000'],
    [1 / 10, '8/60000,50/3600000'],
    [1 / 1000, '1/60000,1/3600000'],
  ];
  for (const [share, want] of rows) t.equal(text(shareOf(github, share)), want, `share ${share}`);
  t.end();
});

t.test('N bridges with shares of 1/N never exceed the whole budget together', (t) => {
  const github = parseBudget('80/1m,500/1h') as BudgetWindow[];
  for (const n of [1, 2, 3, 5, 7, 10, 20]) {
    const each = shareOf(github, 1 / n);
    each.forEach((w, i) => t.ok(w.count * n <= github[i]!.count, `${n} bridges: ${w.count} × ${n} ≤ ${github[i]!.count}`));
  }
  t.end();
});
