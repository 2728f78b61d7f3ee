import t from 'tap';
import {
  DEFAULT_TURN_RULES,
  budgetText,
  decideTurn,
  goesBefore,
  nextSlots,
  parseBudget,
  primaryAllows,
  stale,
  type BudgetWindow,
  type Waiting,
  withMargin,
} from '../../../src/forges/github/write-budget.js';
import { BudgetDeferred, BudgetGate } from '../../../src/forges/github/budget-gate.js';

const M = 60_000;
const H = 3_600_000;
const GITHUB: BudgetWindow[] = [
  { count: 80, ms: M },
  { count: 500, ms: H },
];

t.test('parseBudget: comma lists of <count>/<duration>, shortest window first', (t) => {
  const rows: Array<[string, BudgetWindow[] | RegExp]> = [
    ['80/1m,500/1h', GITHUB],
    [' 500/1h , 80/60s ', GITHUB],
    ['10/30s', [{ count: 10, ms: 30_000 }]],
    ['1/250ms', [{ count: 1, ms: 250 }]],
    ['', /at least one window/],
    ['80', /"80": each window/],
    ['0/1m', /"0\/1m"/],
    ['80/0s', /"80\/0s"/],
    ['80/1m,abc', /"abc"/],
    ['-1/1m', /"-1\/1m"/],
    ['1.5/1m', /"1.5\/1m"/],
  ];
  for (const [text, want] of rows) {
    const got = parseBudget(text);
    if (want instanceof RegExp) t.match(got, { problem: want }, text);
    else t.same(got, want, text);
  }
  t.equal(budgetText(GITHUB), '80/1m,500/1h');
  t.equal(budgetText([{ count: 3, ms: 1500 }]), '3/1500ms');
  t.end();
});

t.test('nextSlots: the next writes as early as every window allows', (t) => {
  const rows: Array<{ name: string; windows: BudgetWindow[]; sent: number[]; now: number; n: number; want: number[] }> = [
    { name: 'room: all now', windows: GITHUB, sent: [], now: 1000, n: 3, want: [1000, 1000, 1000] },
    { name: 'floor of 1 s', windows: [{ count: 1, ms: 1000 }], sent: [500], now: 600, n: 3, want: [1500, 2500, 3500] },
    {
      name: 'minute full: the oldest leaves the window',
      windows: [{ count: 2, ms: M }],
      sent: [0, 10_000],
      now: 20_000,
      n: 3,
      want: [M, M + 10_000, 2 * M],
    },
    {
      name: 'the hour binds after the minute',
      windows: [
        { count: 2, ms: M },
        { count: 3, ms: H },
      ],
      sent: [0],
      now: 0,
      n: 4,
      want: [0, M, H, H],
    },
    { name: 'none asked', windows: GITHUB, sent: [1, 2], now: 3, n: 0, want: [] },
  ];
  for (const r of rows) t.same(nextSlots(r.windows, r.sent, r.now, r.n), r.want, r.name);
  const stales: Array<[string, BudgetWindow[], number[], number, number]> = [
    ['what is outside the longest window no longer counts', GITHUB, [0, 1, H - 1, H], H + 1, 2],
    ['a send exactly one longest window back no longer counts', GITHUB, [1, 2], H + 1, 1],
    ['all inside: none', GITHUB, [10, 20], 30, 0],
    ['all outside: every one', GITHUB, [10, 20], 2 * H, 2],
    ['none sent', GITHUB, [], 0, 0],
    ['more than the largest count back no longer counts, even inside the window', [{ count: 2, ms: H }], [1, 2, 3, 4], 5, 2],
    ['the largest count of several windows is kept', [{ count: 1, ms: 1000 }, ...GITHUB], [1, 2, 3], 4, 0],
  ];
  for (const [name, windows, sent, now, want] of stales) t.equal(stale(windows, sent, now), want, name);
  t.same(
    nextSlots([{ count: 3, ms: M }], [1, 2, 3, 4, 5].slice(stale([{ count: 3, ms: M }], [1, 2, 3, 4, 5], 6)), 6, 2),
    nextSlots([{ count: 3, ms: M }], [1, 2, 3, 4, 5], 6, 2),
    'dropping the stale sends changes no slot',
  );
  t.end();
});

t.test('the order under backlog: production final first, then the rest, previews, inactive last; aging lifts', (t) => {
  const w = (key: string, cls: Waiting['class'], final: boolean, since = 0): Waiting => ({ key, class: cls, final, since, due: 0 });
  const aging = DEFAULT_TURN_RULES.agingMs;
  const rows: Array<[string, Waiting, Waiting, number, boolean]> = [
    ['production success before production in_progress', w('a', 'production', true), w('b', 'production', false), 0, true],
    ['production in_progress before another environment', w('a', 'production', false), w('b', 'environment', true), 0, true],
    ['environment before preview', w('a', 'environment', false), w('b', 'preview', true), 0, true],
    ['preview before inactive', w('a', 'preview', false), w('b', 'inactive', false), 0, true],
    ['same rank: the longer wait first', w('a', 'preview', true, 5), w('b', 'preview', true, 3), 10, false],
    ['same rank and wait: by key', w('a', 'preview', true), w('b', 'preview', true), 0, true],
    [
      'an inactive waiting 4 aging periods goes before a fresh production success',
      w('a', 'inactive', false, 0),
      w('b', 'production', true, 4 * aging),
      4 * aging,
      true,
    ],
    ['an inactive waiting 3 periods not yet', w('a', 'inactive', false, 0), w('b', 'production', true, 3 * aging), 3 * aging, false],
  ];
  for (const [name, a, b, now, want] of rows) t.equal(goesBefore(a, b, now, aging), want, name);
  t.end();
});

t.test('decideTurn: a write takes the slot after the writes before it; late ones are passed over', (t) => {
  const windows: BudgetWindow[] = [{ count: 1, ms: 10_000 }];
  const me: Waiting = { key: 'me', class: 'environment', final: true, since: 100, due: 100 };
  const first = (key: string, due: number): Waiting => ({ key, class: 'production', final: true, since: 0, due });
  const rows: Array<[string, number[], Waiting[], number, object]> = [
    ['room now: now', [], [], 100, { sendAt: 100 }],
    ['slot within holdMs: waits in place', [94_000], [], 100_000, { sendAt: 104_000 }],
    ['slot later: come back then', [100_000], [], 100_000, { retryAt: 110_000 }],
    ['two before it: the third slot', [], [first('a', 100), first('b', 100)], 100, { retryAt: 20_100 }],
    ['one before it is late: passed over', [], [first('a', 100 - 20_000), first('b', 100)], 100, { retryAt: 10_100 }],
    ['its own old entry does not count', [], [{ ...me, due: 50 }], 100, { sendAt: 100 }],
    ['lower ones do not count', [], [{ ...me, key: 'x', class: 'inactive' }], 100, { sendAt: 100 }],
  ];
  for (const [name, sent, others, now, want] of rows) t.same(decideTurn(windows, sent, others, { ...me, due: now }, now), want, name);
  // An optional write (in_progress, inactive) uses a quarter of each window until it has waited agingMs.
  const hour: BudgetWindow[] = [{ count: 8, ms: H }];
  const optional: Waiting = { ...me, final: false, optional: true };
  const aged = DEFAULT_TURN_RULES.agingMs;
  const optionalRows: Array<[string, number[], number, Waiting, object]> = [
    ['optional, window a quarter used: goes', [1], 10, optional, { sendAt: 10 }],
    ['optional, window half used: waits for a quarter to leave', [1, 2, 3, 4], 10, optional, { retryAt: 3 + H }],
    ['a create at half: goes', [1, 2, 3, 4], 10, { ...optional, optional: false }, { sendAt: 10 }],
    ['optional, aged: the whole window', [1, 2, 3, 4], aged + 100, optional, { sendAt: aged + 100 }],
  ];
  for (const [name, sent, now, w, want] of optionalRows) t.same(decideTurn(hour, sent, [], { ...w, due: now }, now), want, name);
  t.same(withMargin({ count: 80, ms: M }), { count: 80, ms: M + 1000 }, 'margin: at most 1 s');
  t.same(withMargin({ count: 1, ms: 500 }), { count: 1, ms: 550 }, 'margin: at least 50 ms');
  t.same(withMargin({ count: 5, ms: 4000 }), { count: 5, ms: 4200 }, 'margin: 5 %');
  t.end();
});

t.test('the comment class: below inactive, never aging, a quarter of each window, never waiting in place', (t) => {
  const aging = DEFAULT_TURN_RULES.agingMs;
  const w = (key: string, cls: Waiting['class'], since = 0): Waiting => ({ key, class: cls, final: true, since, due: 0 });
  const order: Array<[string, Waiting, Waiting, number, boolean]> = [
    ['a fresh inactive before a fresh comment', w('b', 'inactive'), w('a', 'comment'), 0, true],
    [
      'a comment waiting a day still after a fresh production write',
      w('b', 'production', 86_400_000),
      w('a', 'comment', 0),
      86_400_000,
      true,
    ],
    ['two comments: the longer wait first', w('a', 'comment', 0), w('b', 'comment', 5), 10, true],
  ];
  for (const [name, a, b, now, want] of order) t.equal(goesBefore(a, b, now, aging), want, name);
  const comment = (since: number, now: number): Waiting => ({ ...w('c', 'comment', since), due: now });
  const hour: BudgetWindow[] = [{ count: 8, ms: H }];
  const turns: Array<[string, number[], number, Waiting, object]> = [
    ['room in its quarter: goes now', [1], 10, comment(10, 10), { sendAt: 10 }],
    [
      'its quarter used: back when a write leaves, however long it waited',
      [1, 2, 3, 4],
      2 * aging,
      comment(0, 2 * aging),
      { retryAt: 3 + H },
    ],
    ['a slot 1 s ahead: not held in place, told to come back', [], 10, comment(10, 10), { retryAt: 1_010 }],
  ];
  const floor: BudgetWindow[] = [{ count: 1, ms: 1_000 }];
  for (const [name, sent, now, me, want] of turns)
    t.same(decideTurn(name.startsWith('a slot') ? floor : hour, name.startsWith('a slot') ? [10] : sent, [], me, now), want, name);
  const reserve = (rank: number) => Math.ceil(5_000 * (0.01 + 0.05 * rank));
  t.equal(primaryAllows(5_000, reserve(4), 0, 4), false, 'a comment keeps back 21 % of the primary budget');
  t.end();
});

t.test('primaryAllows: each class keeps a larger share of the primary budget back', (t) => {
  const rows: Array<[number, number, number, number, boolean]> = [
    // limit, remaining, inflight, rank, allowed
    [5000, 4000, 0, 3.5, true],
    [5000, 900, 0, 3.5, false],
    [5000, 900, 0, 0, true],
    [5000, 51, 0, 0, true],
    [5000, 50, 0, 0, false],
    [5000, 60, 10, 0, false],
    [60, 2, 0, 0, true],
    [60, 1, 0, 0, false],
    [5000, 100, 0, -2, true],
  ];
  for (const [limit, remaining, inflight, rank, want] of rows)
    t.equal(primaryAllows(limit, remaining, inflight, rank), want, `${remaining}/${limit} (${inflight} in flight), rank ${rank}`);
  t.end();
});

t.test('BudgetGate: never more than the windows allow; the rest told when to come back', async (t) => {
  let clock = 1_000_000;
  const slept: number[] = [];
  const gate = new BudgetGate({
    forge: 'GitHub',
    windows: [{ count: 3, ms: M }],
    floorMs: 1000,
    now: () => clock,
    sleep: (ms) => {
      slept.push(ms);
      clock += ms;
      return Promise.resolve();
    },
  });
  const turn = (key: string) => ({ key, class: 'environment' as const, final: true });
  await gate.write('token', turn('a'));
  await gate.write('token', turn('b'));
  await gate.write('token', turn('c'));
  t.same(slept, [1000, 1000], 'the floor spaces them');
  const err = await gate.write('token', turn('d')).catch((e: unknown) => e);
  t.ok(err instanceof BudgetDeferred, 'the fourth in the minute is deferred');
  t.equal((err as BudgetDeferred).retryAt, 1_000_000 + M + 1000, 'the window with its margin (5 %, at most 1 s)');
  t.equal((err as BudgetDeferred).notSent, true);
  t.match(gate.backlog(), [{ scope: 'token', waiting: 1, oldestSince: 1_002_000, freesAt: 1_000_000 + M + 1000 }]);
  const other = await gate.write('installation 7', turn('x')).then(() => 'sent');
  t.equal(other, 'sent', 'another scope has a budget of its own');
  clock = 1_000_000 + M + 1000;
  await gate.write('token', turn('d'));
  t.match(gate.backlog()[0], { waiting: 0, oldestSince: null });
});

t.test('BudgetGate.spend: the primary reserve holds back low classes until the reset', (t) => {
  const clock = 5_000;
  const gate = new BudgetGate({ forge: 'GitHub', windows: GITHUB, now: () => clock });
  const budget = { resource: 'core', limit: 1000, remaining: 100, used: 900, resetAt: 60_000 };
  const preview = { key: 'p', class: 'preview' as const, final: false };
  const prod = { key: 'q', class: 'production' as const, final: true };
  t.throws(() => gate.spend('token', preview, budget), BudgetDeferred);
  const release = gate.spend('token', prod, budget);
  release();
  release();
  t.doesNotThrow(() => gate.spend('token', preview, { ...budget, resetAt: 1_000 }), 'a past reset spends freely');
  t.doesNotThrow(() => gate.spend('token', preview, undefined), 'no budget seen yet');
  t.end();
});
