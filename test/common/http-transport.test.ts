/**
 * The bridge's transport (http-transport.ts): fetch's behaviour where the forge and registry clients rely on it,
 * over node:http, against a real local server.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import t, { type Test } from 'tap';
import { readCapped } from '../../src/common/capped-body.js';
import { IDLE_CONNECTION_MS, lightFetch } from '../../src/common/http-transport.js';

const MANUAL = { redirect: 'manual' } as const;

/** A local server answering with `handle`; the remote ports of the connections it accepted. */
async function serve(t: Test, handle: (req: IncomingMessage, body: string, res: ServerResponse) => void) {
  const ports: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => handle(req, body, res));
  });
  server.on('connection', (s: Socket) => ports.push(s.remotePort ?? 0));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())).finally(() => server.closeAllConnections()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ports };
}

t.test('status, headers (repeated ones joined, names in any case) and a JSON body, as fetch gives them', async (t) => {
  const s = await serve(t, (_req, _body, res) => {
    res.setHeader('x-many', ['a', 'b']);
    res.writeHead(201, 'Created', { 'Content-Type': 'application/json', Link: '<x>; rel="next"' });
    res.end('{"id":7}');
  });
  const res = await lightFetch(`${s.url}/repos`, MANUAL);
  t.equal(res.status, 201);
  t.equal(res.ok, true);
  t.equal(res.statusText, 'Created');
  t.equal(res.url, `${s.url}/repos`);
  t.equal(res.headers.get('CONTENT-TYPE'), 'application/json');
  t.equal(res.headers.get('x-many'), 'a, b');
  t.equal(res.headers.get('absent'), null);
  t.same(
    [...res.headers].map(([k]) => k),
    ['connection', 'content-type', 'date', 'keep-alive', 'link', 'transfer-encoding', 'x-many'],
    'iterated sorted by name, as octokit reads them',
  );
  t.same(await res.json(), { id: 7 });
  await t.rejects(res.text(), TypeError, 'a body is read once');
});

t.test('a POST carries its method, headers and body with its length; HEAD and 204 have no body', async (t) => {
  const seen: string[] = [];
  const s = await serve(t, (req, body, res) => {
    seen.push(`${req.method} ${req.headers['content-length']} ${req.headers.authorization} ${body}`);
    res.writeHead(req.method === 'POST' ? 204 : 200, { 'content-length': '5' });
    res.end(req.method === 'HEAD' ? undefined : req.method === 'POST' ? undefined : 'hello');
  });
  const post = await lightFetch(s.url, { ...MANUAL, method: 'post', headers: { Authorization: 'token x' }, body: '{"ré":1}' });
  t.equal(post.status, 204);
  t.equal(post.body, null);
  const head = await lightFetch(s.url, { ...MANUAL, method: 'HEAD', headers: [['authorization', 'token y']] });
  t.equal(head.body, null);
  t.equal(head.headers.get('content-length'), '5');
  t.same(seen, ['POST 9 token x {"ré":1}', 'HEAD undefined token y ']);
});

t.test('connections are kept alive from one request to the next', async (t) => {
  const s = await serve(t, (_req, _body, res) => res.end('ok'));
  for (let i = 0; i < 3; i++) t.equal(await (await lightFetch(s.url, MANUAL)).text(), 'ok');
  t.equal(s.ports.length, 1, 'one connection for three requests');
});

t.test('an idle kept-alive connection is closed after IDLE_CONNECTION_MS, or sooner when the server says so', async (t) => {
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const quiet = await serve(t, (_req, _body, res) => res.end('ok'));
  await (await lightFetch(quiet.url, MANUAL)).text();
  await pause(IDLE_CONNECTION_MS + 500);
  await (await lightFetch(quiet.url, MANUAL)).text();
  t.equal(quiet.ports.length, 2, 'a new connection after the idle time: the old one was not kept until the server closed it');
  const hinting = await serve(t, (_req, _body, res) => res.setHeader('keep-alive', 'timeout=2').end('ok'));
  await (await lightFetch(hinting.url, MANUAL)).text();
  await pause(1_500);
  await (await lightFetch(hinting.url, MANUAL)).text();
  t.equal(hinting.ports.length, 2, "the server's Keep-Alive timeout less a second");
});

t.test('a read whose kept-alive connection was closed under it is sent again once; a write is not', async (t) => {
  const perSocket = new Map<unknown, number>();
  const seen: string[] = [];
  const s = await serve(t, (req, _body, res) => {
    const n = (perSocket.get(req.socket) ?? 0) + 1;
    perSocket.set(req.socket, n);
    seen.push(`${req.method} ${n}`);
    if (n === 2)
      req.socket.destroy(); // the second request on a connection: closed without an answer
    else res.end('ok');
  });
  await (await lightFetch(s.url, MANUAL)).text();
  t.equal(await (await lightFetch(s.url, MANUAL)).text(), 'ok', 'the GET answered over a new connection');
  const post = await lightFetch(s.url, { ...MANUAL, method: 'POST', body: '{}' }).catch((e: unknown) => e as TypeError);
  t.match(
    post,
    { name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNRESET' } },
    'a POST may have been acted on: not repeated',
  );
  t.same(seen, ['GET 1', 'GET 2', 'GET 1', 'POST 2']);
});

t.test('a redirect is answered, not followed; asking to follow is refused before anything is sent', async (t) => {
  let hits = 0;
  const s = await serve(t, (_req, _body, res) => {
    hits++;
    res.writeHead(302, { location: 'https://elsewhere.example/' }).end();
  });
  const res = await lightFetch(s.url, MANUAL);
  t.equal(res.status, 302);
  t.equal(res.headers.get('location'), 'https://elsewhere.example/');
  await t.rejects(lightFetch(s.url), { name: 'TypeError', message: /follows no redirects/ });
  t.equal(hits, 1);
});

t.test('failures look like fetch failures: a refused connection, an abort before and while the body is read', async (t) => {
  const s = await serve(t, (_req, _body, res) => {
    res.writeHead(200);
    res.write('part');
  });
  const closed = s.url.replace(/:\d+$/, ':1');
  const refused = await lightFetch(closed, MANUAL).catch((e: unknown) => e as TypeError);
  t.match(refused, { name: 'TypeError', message: 'fetch failed', cause: { code: 'ECONNREFUSED' } });
  await t.rejects(lightFetch(s.url, { ...MANUAL, signal: AbortSignal.abort(new Error('gone')) }), { message: 'gone' });
  const timeout = AbortSignal.timeout(100);
  const res = await lightFetch(s.url, { ...MANUAL, signal: timeout });
  await t.rejects(res.text(), { name: 'TimeoutError' }, 'the body read ends with the signal, as fetch does');
  await t.rejects(lightFetch('ftp://127.0.0.1/', MANUAL), { message: 'fetch failed' });
});

t.test('readCapped over the transport: past the cap the connection is closed, the rest never read', async (t) => {
  let sent = 0;
  const s = await serve(t, (_req, _body, res) => {
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (sent < 64 * 2 ** 20 && !res.destroyed) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    res.writeHead(200);
    pump();
  });
  await t.rejects(readCapped(await lightFetch(s.url, MANUAL), 2 ** 20), { name: 'BodyTooLarge' });
  t.ok(sent < 16 * 2 ** 20, `sent ${sent} bytes`);
});
