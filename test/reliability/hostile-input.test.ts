/**
 * Reliability: hostile webhook input against the real bridge process. Thousands of mutated bodies and
 * headers (fuzz.ts) with slow senders on raw sockets at the same time: the process never crashes,
 * every request gets exactly the answer its oracle computed, the rejections show in /metrics, memory
 * stays bounded. FUZZ_SEED=<n> replays a run; FUZZ_CASES=<n> changes its size.
 */
import http from 'node:http';
import net from 'node:net';
import { readFileSync } from 'node:fs';
import t, { type Test } from 'tap';
import { errorMessage } from '../../src/common/errors.js';
import { fluxEvent, startBridge, type BridgeProcess } from '../harness/bridge-process.js';
import { WEBHOOK_KEY, startWorld } from '../harness/world.js';
import { BODY_LIMIT, FuzzGenerator, Rng, hmac, loadSeeds, type Expected, type FuzzCase } from './fuzz.js';
import { fluxEventsDir } from '../fixtures/locate.js';

const FIXTURES = fluxEventsDir();
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32)) >>> 0;
const CASES = Number(process.env.FUZZ_CASES ?? 5000);
const CONCURRENCY = 16;
const RSS_BOUND_MIB = 400;
/** Longest any single request or slow socket may stay unanswered before the test calls it lost. */
const ANSWER_DEADLINE_MS = 60_000;

t.comment(`fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED}), ${CASES} random cases`);

const seeds = loadSeeds(FIXTURES, [
  fluxEvent('Kustomization', 'flux-system', 'apps'),
  fluxEvent('HelmRelease', 'apps', 'web', { reason: 'UpgradeSucceeded' }),
  fluxEvent('Kustomization', 'apps', 'api', { severity: 'error', reason: 'HealthCheckFailed', message: '' }),
]);
const VALID = Buffer.from(fluxEvent('Kustomization', 'flux-system', 'apps'));

interface Answer {
  status: number;
  body: string;
}

/** One request over a keep-alive agent; a lost connection or no answer comes back as status 0. */
function send(port: number, agent: http.Agent, c: Pick<FuzzCase, 'body' | 'headers'>): Promise<Answer> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/webhook',
        agent,
        headers: { ...c.headers, 'content-length': String(c.body.length) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (e) => resolve({ status: 0, body: `response: ${e.message}` }));
      },
    );
    req.setTimeout(ANSWER_DEADLINE_MS, () => req.destroy(new Error(`no answer within ${ANSWER_DEADLINE_MS} ms`)));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, body: `${e.code ?? ''} ${e.message}` }));
    req.end(c.body);
  });
}

/** Why an answer does not match its expectation (code, then what the body says), or undefined. */
function mismatch(e: Expected, a: Answer): string | undefined {
  if (a.status !== e.code) return `answered ${a.status}`;
  let body: { status?: string; error?: string } = {};
  try {
    body = JSON.parse(a.body) as typeof body;
  } catch {
    return `answer is not JSON: ${a.body.slice(0, 80)}`;
  }
  const ok =
    e.result === 'accepted'
      ? body.status === 'queued'
      : e.result === 'ignored'
        ? body.status === 'ignored'
        : e.result === 'bad_json'
          ? /not valid JSON/.test(body.error ?? '')
          : e.result === 'invalid_event'
            ? /^not a Flux event/.test(body.error ?? '')
            : typeof body.error === 'string';
  return ok ? undefined : `right code, wrong answer: ${a.body.slice(0, 120)}`;
}

/** `gdb_events_total` as `kind/result` → count. */
async function eventCounters(bridge: BridgeProcess): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const m of (await bridge.metrics()).matchAll(/^gdb_events_total\{kind="([^"]*)",result="([^"]*)"\} (\d+)$/gm))
    out.set(`${m[1]}/${m[2]}`, Number(m[3]));
  return out;
}
const diff = (after: Map<string, number>, before: Map<string, number>) =>
  Object.fromEntries(
    [...after]
      .map(([k, v]): [string, number] => [k, v - (before.get(k) ?? 0)])
      .filter(([, v]) => v !== 0)
      .sort(),
  );

/** Resident set size of a process in MiB (Linux /proc). */
const rssMiB = (pid: number): number => Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

interface SlowResult {
  name: string;
  statusLine: string;
  closed: boolean;
  ms: number;
}

/**
 * A raw socket sending `bytes` on a schedule: `first` bytes at once, then `chunk` bytes every `everyMs`,
 * stopping after `stopAt` bytes. Resolves when the server closes the connection (or, not closed, at the
 * answer deadline).
 */
function slowSocket(
  port: number,
  name: string,
  bytes: Buffer,
  o: { first: number; chunk: number; everyMs: number; stopAt?: number },
): Promise<SlowResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const stopAt = Math.min(o.stopAt ?? bytes.length, bytes.length);
    let sent = Math.min(o.first, stopAt);
    let answer = '';
    const socket = net.connect(port, '127.0.0.1');
    socket.write(bytes.subarray(0, sent)); // buffered until connected, ahead of any drip
    const drip = setInterval(() => {
      if (sent >= stopAt) return;
      socket.write(bytes.subarray(sent, Math.min(stopAt, sent + o.chunk)));
      sent = Math.min(stopAt, sent + o.chunk);
    }, o.everyMs);
    const deadline = setTimeout(() => {
      finish(false);
      socket.destroy();
    }, ANSWER_DEADLINE_MS);
    const finish = (closed: boolean) => {
      clearInterval(drip);
      clearTimeout(deadline);
      resolve({ name, statusLine: answer.split('\r\n')[0] ?? '', closed, ms: Date.now() - started });
    };
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
    });
    socket.on('error', () => {
      /* the close that follows reports it */
    });
    socket.on('close', () => finish(true));
  });
}

/** A whole HTTP/1.1 request for /webhook as raw bytes; the server closes the connection after answering. */
const rawRequest = (body: Buffer, headers: string[]): Buffer =>
  Buffer.concat([
    Buffer.from(`POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`),
    body,
  ]);
const signedHeaders = (body: Buffer) => [
  'Content-Type: application/json',
  `X-Signature: sha256=${hmac(WEBHOOK_KEY, body)}`,
  `Content-Length: ${body.length}`,
];

/** Sends raw bytes on a fresh connection and returns every status line the server wrote before closing. */
function rawExchange(port: number, bytes: Buffer): Promise<string[]> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    let answer = '';
    const deadline = setTimeout(() => socket.destroy(), ANSWER_DEADLINE_MS);
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
    });
    socket.on('error', () => {
      /* reported by close */
    });
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve(answer.match(/^HTTP\/1\.[01] \d{3}/gm) ?? []);
    });
  });
}

const world = await startWorld();
t.teardown(() => world.close());

/** The real bridge in this world, without tap's instrumentation, so its RSS is its own; killed at teardown. */
async function bridgeProcess(t: Test, env: Record<string, string>): Promise<BridgeProcess> {
  const bridge = await startBridge({ env: world.env(env), webhookKey: WEBHOOK_KEY });
  t.teardown(() => bridge.kill('SIGKILL'));
  return bridge;
}

t.test('fuzzed bodies and headers with slow senders alongside: exact answers, live process, bounded memory', async (t) => {
  const startMs = Date.now();
  const bridge = await bridgeProcess(t, { WEBHOOK_RATE_PER_MINUTE: '1000000' });
  t.comment(`bridge started in ${((Date.now() - startMs) / 1000).toFixed(1)} s`);
  const pid = bridge.child.pid!;
  const port = Number(new URL(bridge.url).port);
  t.equal((await bridge.post(VALID.toString())).status, 202, 'warm-up event accepted');
  const rssBefore = rssMiB(pid);
  const countersBefore = await eventCounters(bridge);

  const gen = new FuzzGenerator(new Rng(SEED), WEBHOOK_KEY, seeds);
  const cases = [...gen.anchors(VALID), ...Array.from({ length: CASES }, () => gen.next())];
  const expectedCounters = new Map<string, number>();
  const bump = (e: Expected) => expectedCounters.set(`${e.kind}/${e.result}`, (expectedCounters.get(`${e.kind}/${e.result}`) ?? 0) + 1);
  cases.forEach((c) => bump(c.expected));

  // Slow senders, started with the fuzz: four the server must cut (408), one slow but in time.
  const slowBody = Buffer.from(fluxEvent('HelmRelease', 'apps', 'slow-but-in-time'));
  const stalled = rawRequest(VALID, signedHeaders(VALID));
  const headerLength = stalled.indexOf('\r\n\r\n') + 4;
  let answered = 0;
  let answeredAtFirstCut: number | undefined;
  const cut = (p: Promise<SlowResult>) =>
    p.then((r) => {
      answeredAtFirstCut ??= answered;
      return r;
    });
  const started = Date.now();
  const slow = Promise.all([
    cut(slowSocket(port, 'body one byte every 200 ms', stalled, { first: headerLength, chunk: 1, everyMs: 200 })),
    cut(
      slowSocket(port, 'stops in the middle of the body', stalled, {
        first: headerLength + 50,
        chunk: 1,
        everyMs: 200,
        stopAt: headerLength + 50,
      }),
    ),
    cut(slowSocket(port, 'headers one byte every 200 ms', stalled, { first: 0, chunk: 1, everyMs: 200 })),
    cut(slowSocket(port, 'connects and sends nothing', stalled, { first: 0, chunk: 1, everyMs: 200, stopAt: 0 })),
    slowSocket(port, 'whole request in 64-byte pieces over ~1.5 s', rawRequest(slowBody, signedHeaders(slowBody)), {
      first: 0,
      chunk: 64,
      everyMs: 100,
    }),
  ]);
  bump({ code: 202, kind: 'HelmRelease', result: 'accepted' });

  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  t.teardown(() => agent.destroy());
  const perCode = new Map<number, number>();
  const wrong: string[] = [];
  let peakRss = rssBefore;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssMiB(pid));
  }, 250);
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const answer = await send(port, agent, c);
        answered++;
        perCode.set(answer.status, (perCode.get(answer.status) ?? 0) + 1);
        const why = mismatch(c.expected, answer);
        if (why) wrong.push(`#${c.id} ${c.label} (${c.body.length} B): expected ${c.expected.code} ${c.expected.result}, ${why}`);
      }
    }),
  );
  const fuzzMs = Date.now() - started;
  const slowResults = await slow;
  clearInterval(sampler);
  const wallMs = Date.now() - started;

  t.same(wrong.slice(0, 25), [], `every fuzzed request got its oracle's answer (seed ${SEED})`);
  t.equal(wrong.length, 0, `${wrong.length} of ${cases.length} requests answered otherwise`);
  for (const r of slowResults.slice(0, 4)) {
    t.match(r, { statusLine: 'HTTP/1.1 408 Request Timeout', closed: true }, `${r.name}: answered 408 and cut`);
  }
  t.match(slowResults[4], { statusLine: 'HTTP/1.1 202 Accepted', closed: true }, 'a slow sender within the bound is served');
  t.ok(
    answeredAtFirstCut !== undefined && answeredAtFirstCut > 0,
    `fuzz requests were answered while the slow senders held their sockets (${answeredAtFirstCut})`,
  );

  t.equal(bridge.child.exitCode, null, 'the process is alive');
  t.equal(bridge.child.signalCode, null);
  // The accepted sources (odd names included) are reconciled and retried with backoff, never in a hot
  // loop: a second passes without a Kubernetes request.
  const quiet = await bridge
    .waitFor(
      'a second without Kubernetes requests',
      async () => {
        const n = world.kube.requests.length;
        await new Promise((r) => setTimeout(r, 1000));
        return world.kube.requests.length === n && n;
      },
      ANSWER_DEADLINE_MS,
    )
    .catch((err: unknown) => errorMessage(err).slice(0, 200));
  t.type(quiet, 'number', `the bridge goes quiet after the run (${quiet} Kubernetes requests)`);
  t.equal((await bridge.get('/healthz')).status, 200, '/healthz answers');
  t.same(await bridge.post(VALID.toString()), { status: 202, body: { status: 'queued' } }, 'a valid signed event is still accepted');
  bump({ code: 202, kind: 'Kustomization', result: 'accepted' });
  t.same(
    diff(await eventCounters(bridge), countersBefore),
    Object.fromEntries([...expectedCounters].sort()),
    'gdb_events_total counts every request by result, rejections before the handler (413, 415) included',
  );

  const rssAfter = rssMiB(pid);
  t.ok(rssAfter < RSS_BOUND_MIB, `RSS after the run ${rssAfter.toFixed(1)} MiB < ${RSS_BOUND_MIB} MiB`);
  t.ok(peakRss < RSS_BOUND_MIB, `peak RSS during the run ${peakRss.toFixed(1)} MiB < ${RSS_BOUND_MIB} MiB`);
  t.notMatch(bridge.stderr(), /uncaught|unhandled|FATAL|heap out of memory/i, 'nothing crashed on stderr');
  t.same(
    bridge.logs.filter((l) => Number(l.level) >= 60),
    [],
    'no fatal log line',
  );

  const codes = [...perCode]
    .sort((a, b) => a[0] - b[0])
    .map(([c, n]) => `${c}: ${n}`)
    .join(', ');
  const slowLine = slowResults
    .map((r) => `${r.name} → ${r.statusLine.slice(9) || '(none)'} after ${(r.ms / 1000).toFixed(1)} s`)
    .join('; ');
  t.comment(
    `seed ${SEED}: ${cases.length} requests in ${(fuzzMs / 1000).toFixed(1)} s (${Math.round(cases.length / (fuzzMs / 1000))}/s), codes ${codes}`,
  );
  t.comment(`slow senders: ${slowLine}; wall ${(wallMs / 1000).toFixed(1)} s`);
  t.comment(`RSS before ${rssBefore.toFixed(1)} MiB, peak ${peakRss.toFixed(1)} MiB, after ${rssAfter.toFixed(1)} MiB`);
  const messages = new Map<string, number>();
  for (const l of bridge.logs) if (Number(l.level) >= 40) messages.set(String(l.msg), (messages.get(String(l.msg)) ?? 0) + 1);
  t.comment(`log lines: ${bridge.logs.length}; warnings and errors: ${[...messages].map(([m, n]) => `${n}× ${m}`).join(', ')}`);
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const cpu = process.cpuUsage();
  t.comment(
    `CPU: bridge ${((Number(stat[11]) + Number(stat[12])) / 100).toFixed(1)} s, this test process ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s; Kubernetes requests for the accepted sources: ${world.kube.requests.length}`,
  );

  // Protocol-level abuse on raw sockets, after the fuzz: Node's parser and Fastify answer these.
  const signed = (body: Buffer) => `X-Signature: sha256=${hmac(WEBHOOK_KEY, body)}`;
  const chunked = (body: string) => `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
  const big = 'x'.repeat(BODY_LIMIT + 1);
  const head = VALID.subarray(0, 100);
  const protocol: Array<[string, Buffer, string]> = [
    [
      'Content-Length shorter than the body',
      Buffer.concat([rawRequest(head, ['Content-Type: application/json', signed(head), 'Content-Length: 100']), VALID.subarray(100)]),
      '400',
    ],
    ['Content-Length not a number', rawRequest(VALID, ['Content-Type: application/json', signed(VALID), 'Content-Length: 5x']), '400'],
    [
      'two different Content-Lengths',
      rawRequest(VALID, ['Content-Type: application/json', signed(VALID), `Content-Length: ${VALID.length}`, 'Content-Length: 3']),
      '400',
    ],
    [
      'Content-Length and chunked together',
      rawRequest(Buffer.from(chunked(VALID.toString())), [
        'Content-Type: application/json',
        signed(VALID),
        'Content-Length: 5',
        'Transfer-Encoding: chunked',
      ]),
      '400',
    ],
    [
      'Content-Length over the limit, body never sent',
      rawRequest(Buffer.alloc(0), ['Content-Type: application/json', signed(VALID), `Content-Length: ${BODY_LIMIT + 1}`]),
      '413',
    ],
    [
      'Content-Length of 2^64',
      rawRequest(Buffer.alloc(0), ['Content-Type: application/json', signed(VALID), 'Content-Length: 18446744073709551616']),
      '400',
    ],
    [
      'chunked body over the limit',
      rawRequest(Buffer.from(chunked(big)), [
        'Content-Type: application/json',
        `X-Signature: sha256=${hmac(WEBHOOK_KEY, Buffer.from(big))}`,
        'Transfer-Encoding: chunked',
      ]),
      '413',
    ],
    [
      'chunked valid event',
      rawRequest(Buffer.from(chunked(VALID.toString())), ['Content-Type: application/json', signed(VALID), 'Transfer-Encoding: chunked']),
      '202',
    ],
    [
      'HTTP/1.0 valid event',
      Buffer.concat([
        Buffer.from('POST /webhook HTTP/1.0\r\n'),
        rawRequest(VALID, signedHeaders(VALID)).subarray('POST /webhook HTTP/1.1\r\n'.length),
      ]),
      '202',
    ],
    ['header block over 16 KiB', rawRequest(VALID, [...signedHeaders(VALID), `X-Padding: ${'p'.repeat(17_000)}`]), '431'],
    ['not HTTP at all', Buffer.from('\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 hello\r\n\r\n', 'latin1'), '400'],
    ['GET /webhook', Buffer.from('GET /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'), '404'],
  ];
  const protocolStarted = Date.now();
  for (const [name, bytes, code] of protocol) {
    const lines = await rawExchange(port, bytes);
    t.equal(lines[0]?.slice(9), code, `${name}: first answer ${code} (all: ${lines.join(', ') || 'none'})`);
  }
  t.comment(`protocol cases: ${protocol.length} in ${((Date.now() - protocolStarted) / 1000).toFixed(1)} s`);
  t.equal(bridge.child.exitCode, null, 'alive after the protocol abuse');
  t.same(await bridge.post(VALID.toString()), { status: 202, body: { status: 'queued' } }, 'and still accepting events');
});

t.test(
  'over WEBHOOK_RATE_PER_MINUTE failed verifications, the address is answered 429 before any digest; status routes are not limited',
  async (t) => {
    const limit = 40;
    const bridge = await bridgeProcess(t, { WEBHOOK_RATE_PER_MINUTE: String(limit), DATABASE_PATH: `${world.dir}/rate-limit.db` });
    const port = Number(new URL(bridge.url).port);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    t.teardown(() => agent.destroy());
    const gen = new FuzzGenerator(new Rng(SEED ^ 0x9e3779b9), WEBHOOK_KEY, seeds);
    const before = await eventCounters(bridge);
    const wrong: string[] = [];
    for (let i = 0; i < limit; i++) {
      const c = gen.next();
      const why = mismatch(c.expected, await send(port, agent, c));
      if (why) wrong.push(`#${c.id} ${c.label}: expected ${c.expected.code}, ${why}`);
    }
    t.same(wrong, [], `the first ${limit} requests get their oracle's answers`);
    const unsigned = { body: VALID, headers: { 'content-type': 'application/json', 'x-signature': 'sha256=00' } };
    const codes: number[] = [];
    for (let i = 0; i < limit; i++) codes.push((await send(port, agent, unsigned)).status);
    t.ok(
      codes.every((c) => c === 401 || c === 429),
      'failed verifications: 401, then 429',
    );
    t.equal(codes.at(-1), 429, 'over the limit of failed verifications: 429');
    const signed = { body: VALID, headers: { 'content-type': 'application/json', 'x-signature': `sha256=${hmac(WEBHOOK_KEY, VALID)}` } };
    // Past its budget an address is refused before any digest is computed, a signed event too, until the minute
    // ends (the resync reads every Flux object anyway); a signed event from the address before that was accepted above.
    t.equal((await send(port, agent, signed)).status, 429, 'the flooding address: refused before any digest, signed or not');
    t.equal((await bridge.get('/healthz')).status, 200, '/healthz is not rate limited');
    t.equal((await bridge.get('/metrics')).status, 200, '/metrics is not rate limited');
    t.match(
      diff(await eventCounters(bridge), before),
      { 'unknown/rate_limited': codes.filter((c) => c === 429).length + 1 },
      'the 429s are counted',
    );
    t.equal(bridge.child.exitCode, null);
  },
);
