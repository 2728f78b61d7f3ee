import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import t from 'tap';
import {
  describeProxy,
  installProxy,
  parseNoProxy,
  parseProxyUrl,
  proxySettings,
  redactProxyUrl,
  unmatchableNoProxy,
} from '../../src/common/proxy.js';

/** The global that Node's own fetch reads its dispatcher from (and that the npm undici sets too). */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
const globals = globalThis as unknown as Record<symbol, unknown>;

t.test('proxySettings: which variables count, which one wins', (t) => {
  const rows: Array<[string, NodeJS.ProcessEnv, { http?: string; https?: string; noProxy?: string[] } | undefined]> = [
    ['nothing set: direct', {}, undefined],
    ['only NO_PROXY: direct', { NO_PROXY: 'internal' }, undefined],
    ['blank values are unset', { HTTPS_PROXY: '  ', HTTP_PROXY: '' }, undefined],
    ['HTTPS_PROXY alone: http:// stays direct', { HTTPS_PROXY: 'http://p:3128' }, { https: 'http://p:3128/' }],
    ['HTTP_PROXY alone serves https:// too', { HTTP_PROXY: 'http://p:3128' }, { http: 'http://p:3128/', https: 'http://p:3128/' }],
    ['each scheme its own', { HTTP_PROXY: 'http://a:1', HTTPS_PROXY: 'http://b:2' }, { http: 'http://a:1/', https: 'http://b:2/' }],
    ['lower case first', { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:2' }, { https: 'http://lower:1/' }],
    ['an empty lower-case one falls back', { https_proxy: '', HTTPS_PROXY: 'http://upper:2' }, { https: 'http://upper:2/' }],
    ['no scheme means http://', { HTTPS_PROXY: 'proxy.corp:3128' }, { https: 'http://proxy.corp:3128/' }],
    ['an https:// proxy', { HTTPS_PROXY: 'https://proxy.corp' }, { https: 'https://proxy.corp/' }],
    [
      'NO_PROXY split on commas and blanks, lower case first',
      { HTTPS_PROXY: 'p:1', no_proxy: ' kubernetes.default.svc, .cluster.local  10.0.0.1:6443,,', NO_PROXY: 'ignored' },
      { https: 'http://p:1/', noProxy: ['kubernetes.default.svc', '.cluster.local', '10.0.0.1:6443'] },
    ],
    ['NO_PROXY=* : direct', { HTTPS_PROXY: 'p:1', NO_PROXY: '*' }, undefined],
  ];
  for (const [name, env, want] of rows) {
    const got = proxySettings(env);
    const seen = got && { http: got.http?.href, https: got.https?.href, noProxy: got.noProxy };
    t.same(seen, want && { http: want.http, https: want.https, noProxy: want.noProxy ?? [] }, name);
  }
  t.end();
});

t.test('parseProxyUrl: refuses what undici cannot use, naming the variable but never the credentials', (t) => {
  const rows: Array<[string, RegExp]> = [
    ['socks5://alice:s3cret@proxy:1080', /^HTTPS_PROXY: 'proxy:1080' is not an http:\/\/ or https:\/\/ proxy URL$/],
    ['http://alice:s3cret@', /^HTTPS_PROXY: '' is not a proxy URL/],
    ['http://alice:s3cret@pro xy:3128', /^HTTPS_PROXY: 'pro xy:3128' is not a proxy URL/],
  ];
  for (const [raw, message] of rows) {
    t.throws(() => parseProxyUrl('HTTPS_PROXY', raw), { message }, raw);
    t.throws(() => parseProxyUrl('HTTPS_PROXY', raw), { message: /^(?!.*s3cret)/ }, `${raw}: no password`);
  }
  t.throws(() => proxySettings({ http_proxy: 'ftp://p' }), { message: /^http_proxy: / }, 'the variable as spelled');
  t.end();
});

t.test('redaction and the logged description', (t) => {
  const url = parseProxyUrl('HTTPS_PROXY', 'http://alice:p%40ss@proxy.corp:3128/');
  t.equal(url.username, 'alice', 'the credentials are kept for the proxy');
  t.equal(redactProxyUrl(url), 'http://proxy.corp:3128');
  t.equal(redactProxyUrl(parseProxyUrl('X', 'https://bob@proxy.corp:443')), 'https://proxy.corp', 'a default port is implied');
  t.same(describeProxy(proxySettings({ HTTPS_PROXY: 'http://alice:pw@p:1', NO_PROXY: 'a,b' })!), {
    httpsProxy: 'http://p:1',
    httpProxy: 'direct',
    noProxy: ['a', 'b'],
  });
  t.same(parseNoProxy(undefined), []);
  t.same(unmatchableNoProxy(['10.0.0.0/8', 'svc', '127.0.0.1:6443', 'fd00::/8']), ['10.0.0.0/8', 'fd00::/8']);
  t.end();
});

/** A proxy that answers every forwarded request itself and refuses every CONNECT, recording both. */
async function recordingProxy(): Promise<{ url: string; seen: string[]; auth: Array<string | undefined>; server: Server }> {
  const seen: string[] = [];
  const auth: Array<string | undefined> = [];
  const record = (req: IncomingMessage) => {
    seen.push(`${req.method} ${req.url}`);
    auth.push(req.headers['proxy-authorization']);
  };
  const server = createServer((req, res) => {
    record(req);
    res.end('from the proxy');
  });
  server.on('connect', (req: IncomingMessage, socket: NodeJS.WritableStream & { destroy(): void }) => {
    record(req);
    socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, auth, server };
}

async function origin(): Promise<{ port: number; server: Server }> {
  const server = createServer((_req, res) => res.end('direct'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, server };
}

async function closeAll(servers: Server[]): Promise<void> {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
}

function captureLog(): { log: pino.Logger; lines: () => string } {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { log: pino({ level: 'info' }, sink), lines: () => text };
}

t.test('no proxy variable: nothing installed, not even undici loaded', async (t) => {
  const before = globals[GLOBAL_DISPATCHER];
  const { log, lines } = captureLog();
  t.equal(await installProxy({ NO_PROXY: 'x' }, log), undefined);
  t.equal(globals[GLOBAL_DISPATCHER], before, "Node's own dispatcher untouched");
  t.equal(lines(), '', 'nothing logged');
});

t.test("Node's built-in fetch goes through the installed proxy, except NO_PROXY", async (t) => {
  const httpsProxy = await recordingProxy();
  const httpProxy = await recordingProxy();
  const proxied = await origin();
  const bypassed = await origin();
  const before = globals[GLOBAL_DISPATCHER];
  t.teardown(async () => {
    globals[GLOBAL_DISPATCHER] = before;
    await closeAll([httpsProxy.server, httpProxy.server, proxied.server, bypassed.server]);
  });
  const { log, lines } = captureLog();
  const withUser = httpProxy.url.replace('//', '//alice:s3cret@');
  await installProxy(
    { HTTPS_PROXY: httpsProxy.url, HTTP_PROXY: withUser, NO_PROXY: `127.0.0.1:${bypassed.port}, localhost, 10.0.0.0/8` },
    log,
  );
  t.not(globals[GLOBAL_DISPATCHER], before, 'a dispatcher installed');

  const text = async (url: string, init?: RequestInit) => (await fetch(url, { signal: AbortSignal.timeout(5_000), ...init })).text();
  t.equal(await text(`http://127.0.0.1:${proxied.port}/v2/`), 'from the proxy', 'http:// through HTTP_PROXY');
  t.equal(await text(`http://127.0.0.1:${proxied.port}/statuses`, { method: 'POST', body: '{}' }), 'from the proxy', 'a POST too');
  t.equal(await text(`http://127.0.0.1:${bypassed.port}/`), 'direct', 'a host:port entry of NO_PROXY is direct');
  t.equal(await text(`http://localhost:${proxied.port}/`), 'direct', 'a host entry of NO_PROXY is direct on every port');
  await t.rejects(fetch('https://github.invalid/repos', { signal: AbortSignal.timeout(5_000) }), 'https:// tunnelled: refused here');
  t.same(httpProxy.seen, [`GET http://127.0.0.1:${proxied.port}/v2/`, `POST http://127.0.0.1:${proxied.port}/statuses`]);
  t.same(httpProxy.auth, Array(2).fill(`Basic ${Buffer.from('alice:s3cret').toString('base64')}`), 'credentials sent to the proxy');
  t.same(httpsProxy.seen, ['CONNECT github.invalid:443'], 'https:// through HTTPS_PROXY, with CONNECT');

  const logged = lines();
  t.match(logged, `"httpProxy":"${httpProxy.url}"`);
  t.match(logged, `"httpsProxy":"${httpsProxy.url}"`);
  t.match(logged, `"noProxy":["127.0.0.1:${bypassed.port}","localhost","10.0.0.0/8"]`);
  t.notMatch(logged, 's3cret', 'no password in the log');
  t.notMatch(logged, 'alice', 'no user in the log');
  t.match(logged, /"entries":\["10\.0\.0\.0\/8"\].*match nothing/, 'a range in NO_PROXY is warned about');
});
