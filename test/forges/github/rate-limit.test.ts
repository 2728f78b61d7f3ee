import t from 'tap';
import {
  PRIMARY_FALLBACK_MS,
  RESET_MARGIN_MS,
  SECONDARY_FALLBACK_CAP_MS,
  SECONDARY_FALLBACK_MS,
  budgetSpent,
  rateLimitOf,
  readBudget,
} from '../../../src/forges/github/rate-limit.js';
import type { HeaderBag } from '../../../src/forges/forge-health.js';

const NOW = 1_700_000_000_000;
const RESET_S = NOW / 1000 + 600;
const spent = (extra: HeaderBag = {}): HeaderBag => ({
  'x-ratelimit-limit': '5000',
  'x-ratelimit-remaining': '0',
  'x-ratelimit-used': '5000',
  'x-ratelimit-reset': String(RESET_S),
  'x-ratelimit-resource': 'core',
  ...extra,
});
const PRIMARY_TEXT = 'API rate limit exceeded for installation ID 1.';
const SECONDARY_TEXT = 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.';

t.test('which answers are rate limits, and until when GitHub asks to wait', (t) => {
  const rows: Array<{
    name: string;
    status: number;
    headers: HeaderBag;
    message: string;
    repeats?: number;
    want: { kind: string; until: number } | undefined;
  }> = [
    {
      name: 'primary 403: until x-ratelimit-reset, plus a margin',
      status: 403,
      headers: spent(),
      message: PRIMARY_TEXT,
      want: { kind: 'primary', until: RESET_S * 1000 + RESET_MARGIN_MS },
    },
    {
      name: 'primary 429',
      status: 429,
      headers: spent(),
      message: PRIMARY_TEXT,
      want: { kind: 'primary', until: RESET_S * 1000 + RESET_MARGIN_MS },
    },
    {
      name: 'primary with retry-after: retry-after wins',
      status: 403,
      headers: spent({ 'retry-after': '30' }),
      message: PRIMARY_TEXT,
      want: { kind: 'primary', until: NOW + 30_000 },
    },
    {
      name: 'primary whose reset already passed: a minute',
      status: 403,
      headers: spent({ 'x-ratelimit-reset': String(NOW / 1000 - 5) }),
      message: PRIMARY_TEXT,
      want: { kind: 'primary', until: NOW + PRIMARY_FALLBACK_MS },
    },
    {
      name: 'primary text without headers: a minute',
      status: 403,
      headers: {},
      message: PRIMARY_TEXT,
      want: { kind: 'primary', until: NOW + PRIMARY_FALLBACK_MS },
    },
    {
      name: 'secondary 403 with retry-after',
      status: 403,
      headers: { 'retry-after': '60' },
      message: SECONDARY_TEXT,
      want: { kind: 'secondary', until: NOW + 60_000 },
    },
    {
      name: 'secondary 429 with retry-after as an HTTP date',
      status: 429,
      headers: { 'retry-after': new Date(NOW + 90_000).toUTCString() },
      message: SECONDARY_TEXT,
      want: { kind: 'secondary', until: NOW + 90_000 },
    },
    {
      name: 'secondary with remaining 0 and no retry-after: until the reset',
      status: 403,
      headers: spent(),
      message: SECONDARY_TEXT,
      want: { kind: 'secondary', until: RESET_S * 1000 + RESET_MARGIN_MS },
    },
    {
      name: 'secondary without headers: one minute',
      status: 403,
      headers: {},
      message: SECONDARY_TEXT,
      want: { kind: 'secondary', until: NOW + SECONDARY_FALLBACK_MS },
    },
    {
      name: 'secondary again: two minutes',
      status: 403,
      headers: {},
      message: SECONDARY_TEXT,
      repeats: 1,
      want: { kind: 'secondary', until: NOW + 2 * SECONDARY_FALLBACK_MS },
    },
    {
      name: 'secondary many times: capped',
      status: 403,
      headers: {},
      message: SECONDARY_TEXT,
      repeats: 9,
      want: { kind: 'secondary', until: NOW + SECONDARY_FALLBACK_CAP_MS },
    },
    {
      name: 'bare 429: secondary, one minute',
      status: 429,
      headers: {},
      message: 'Too Many Requests',
      want: { kind: 'secondary', until: NOW + SECONDARY_FALLBACK_MS },
    },
    {
      name: '403 with budget left and no sign: a permission problem',
      status: 403,
      headers: { ...spent(), 'x-ratelimit-remaining': '4999' },
      message: 'Resource not accessible by integration',
      want: undefined,
    },
    {
      name: '403 without headers: a permission problem',
      status: 403,
      headers: {},
      message: 'Must have admin rights to Repository.',
      want: undefined,
    },
    { name: '404 is never a rate limit', status: 404, headers: spent(), message: 'Not Found', want: undefined },
    { name: '500 is never a rate limit', status: 500, headers: { 'retry-after': '5' }, message: 'Server Error', want: undefined },
  ];
  for (const r of rows) {
    const hit = rateLimitOf(r.status, r.headers, r.message, NOW, r.repeats ?? 0);
    if (r.want === undefined) t.equal(hit, undefined, r.name);
    else t.match(hit, { ...r.want, reason: new RegExp(`^${r.want.kind} rate limit: .*${new Date(r.want.until).toISOString()}`) }, r.name);
  }
  t.end();
});

t.test('budget headers', (t) => {
  t.same(readBudget(spent({ 'x-ratelimit-remaining': '12' })), {
    resource: 'core',
    limit: 5000,
    remaining: 12,
    used: 5000,
    resetAt: RESET_S * 1000,
  });
  t.same(
    readBudget({ 'x-ratelimit-limit': 60, 'x-ratelimit-remaining': 59, 'x-ratelimit-reset': RESET_S }),
    { resource: 'core', limit: 60, remaining: 59, used: null, resetAt: RESET_S * 1000 },
    'numbers, resource defaults to core',
  );
  t.equal(readBudget({ 'x-ratelimit-limit': '5000' }), undefined, 'incomplete');
  t.equal(readBudget({ 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': 'many', 'x-ratelimit-reset': '1' }), undefined, 'not numbers');
  t.end();
});

t.test('a success that spent the last request pauses before the next one is refused', (t) => {
  t.match(budgetSpent(spent(), NOW), { kind: 'primary', until: RESET_S * 1000 + RESET_MARGIN_MS, reason: /last of 5000 requests/ });
  t.equal(budgetSpent(spent({ 'x-ratelimit-remaining': '1' }), NOW), undefined, 'one left');
  t.equal(budgetSpent(spent({ 'x-ratelimit-resource': 'search' }), NOW), undefined, 'another resource does not gate deployments');
  t.equal(budgetSpent(spent({ 'x-ratelimit-reset': String(NOW / 1000 - 10) }), NOW), undefined, 'already reset');
  t.equal(budgetSpent({}, NOW), undefined, 'no headers');
  t.end();
});
