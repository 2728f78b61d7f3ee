import t from 'tap';
import { ForgeRedirectRefused, MAX_FORGE_REDIRECTS, sameOriginFetch } from '../../src/forges/forge-fetch.js';

interface Sent {
  url: string;
  method: string;
  body: unknown;
  redirect: unknown;
  token: string | null;
}

/** A fetch answering from a table by URL: a redirect (status, Location) or 200 with the URL it reached. */
function fakeForge(redirects: Record<string, [number, string]>) {
  const sent: Sent[] = [];
  const inner = ((input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const url = input instanceof Request ? input.url : input.toString();
    sent.push({
      url,
      method: init?.method ?? 'GET',
      body: init?.body,
      redirect: init?.redirect,
      token: new Headers(init?.headers).get('private-token'),
    });
    const r = redirects[url];
    if (r !== undefined) return Promise.resolve(new Response('moved', { status: r[0], headers: { location: r[1] } }));
    return Promise.resolve(new Response(JSON.stringify({ reached: url }), { status: 200 }));
  }) as typeof fetch;
  return { sent, fetch: sameOriginFetch(inner) };
}

const A = 'https://gitlab.corp.example:8443';
const init = (method: string) => ({
  method,
  headers: { 'private-token': 'glpat-secret' },
  ...(method === 'GET' ? {} : { body: '{"x":1}' }),
});

t.test('same-origin redirects are followed by hand: 307/308 repeat the request, 301/302/303 only a read', async (t) => {
  const rows: Array<[number, string, string, string | RegExp]> = [
    [307, 'POST', `${A}/new/api`, `${A}/new/api`],
    [308, 'PUT', '/new/api', `${A}/new/api`],
    [301, 'GET', `${A}/new/api`, `${A}/new/api`],
    [302, 'GET', 'new/api', `${A}/gitlab/new/api`],
    [303, 'GET', `${A}/new/api`, `${A}/new/api`],
    [301, 'POST', `${A}/new/api`, /answered POST with 301: a write is not repeated as a GET/],
    [303, 'POST', `${A}/new/api`, /a write is not repeated as a GET/],
  ];
  for (const [status, method, location, want] of rows) {
    const f = fakeForge({ [`${A}/gitlab/api`]: [status, location] });
    const what = `${status} ${method} → ${location}`;
    try {
      const res = await f.fetch(`${A}/gitlab/api`, init(method));
      t.equal(((await res.json()) as { reached: string }).reached, want, what);
      t.same(
        f.sent.map((s) => [s.method, s.body, s.redirect, s.token]),
        [0, 1].map(() => [method, method === 'GET' ? undefined : '{"x":1}', 'manual', 'glpat-secret']),
        `${what}: the same request twice, never followed by fetch itself`,
      );
    } catch (err) {
      t.type(err, ForgeRedirectRefused, what);
      t.match((err as Error).message, want, what);
      t.equal(f.sent.length, 1, `${what}: nothing sent after`);
    }
  }
});

t.test('a redirect to another origin is refused before anything is sent there', async (t) => {
  const others = [
    'https://evil.example/api',
    'http://gitlab.corp.example:8443/api',
    'https://gitlab.corp.example/api',
    'https://gitlab.corp.example:9443/api',
  ];
  for (const to of others) {
    const f = fakeForge({ [`${A}/api`]: [307, to] });
    await t.rejects(f.fetch(`${A}/api`, init('POST')), ForgeRedirectRefused, to);
    await t.rejects(
      f.fetch(`${A}/api`, init('GET')),
      /redirected \(307\) to .*: refused, the token is only sent to https:\/\/gitlab\.corp\.example:8443/,
    );
    t.same(
      f.sent.map((s) => s.url),
      [`${A}/api`, `${A}/api`],
      `${to}: only the forge's own origin was asked`,
    );
  }
  const f = fakeForge({ [`${A}/api`]: [307, 'https://evil.example/x?private_token=leak'] });
  const err = await f.fetch(`${A}/api`, init('GET')).catch((e: unknown) => e as Error);
  t.type(err, ForgeRedirectRefused);
  t.notMatch((err as Error).message, /leak|\/x/, 'origins only in the message');
});

t.test('redirects are bounded', async (t) => {
  const f = fakeForge({ [`${A}/a`]: [307, `${A}/b`], [`${A}/b`]: [307, `${A}/a`] });
  await t.rejects(f.fetch(`${A}/a`, init('GET')), new RegExp(`redirected more than ${MAX_FORGE_REDIRECTS} times`));
  t.equal(f.sent.length, MAX_FORGE_REDIRECTS + 1, 'the first request and MAX_FORGE_REDIRECTS follows');
  const g = fakeForge({ [`${A}/a`]: [307, 'http://[bad'] });
  await t.rejects(g.fetch(`${A}/a`, init('GET')), /Location that is not a URL/);
});

t.test('an answer that is not a redirect, or a 3xx without Location, is handed back as it is', async (t) => {
  const f = fakeForge({ [`${A}/a`]: [304, ''] });
  const res = await f.fetch(`${A}/b`, init('GET'));
  t.equal(res.status, 200);
  t.equal(f.sent.length, 1);
});
