/**
 * Issue 22, item 8: forge answers read with a bound. Before, the Forgejo client and octokit read answers whole
 * (a 300 MiB answer grew RSS by 2.1 GB against a 384 MiB pod limit); now one reader (capped-body.ts) cuts every
 * answer at its cap, declared or streamed, for the registry, GitLab, Forgejo and GitHub alike.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { BodyTooLarge, MAX_FORGE_ANSWER_BYTES, cappedFetch, readCapped } from '../../src/common/capped-body.js';
import { ForgeError } from '../../src/common/errors.js';
import { createMetrics } from '../../src/common/metrics.js';
import { ForgeHealth } from '../../src/forges/forge-health.js';
import { ForgejoClient } from '../../src/forges/forgejo/forgejo-client.js';
import { GITHUB_BUDGETS } from '../../src/forges/github/rate-limit.js';
import { createDeploymentsPort, createOctokit, staticToken } from '../../src/forges/github/octokit-factory.js';
import { WriteSpacing } from '../../src/forges/github/write-spacing.js';

const MIB = 1024 * 1024;

/** A server that answers JSON of `bytes` bytes, streamed in 64 KiB chunks without a Content-Length (or with one). */
async function bigAnswers(t: Test, bytes: number, declare = false): Promise<{ url: string; sent: () => number }> {
  let sent = 0;
  const server = createServer((req, res: ServerResponse) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(bytes) } : {}) });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const pump = () => {
      while (sent < bytes && !res.destroyed) {
        const n = Math.min(chunk.length, bytes - sent);
        sent += n;
        if (!res.write(chunk.subarray(0, n))) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(
    () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sent: () => sent };
}

t.test('readCapped: under the cap whole; over it refused, declared or streamed, the rest left unread', async (t) => {
  t.same(await readCapped(new Response('{"a":1}'), 100), Buffer.from('{"a":1}'));
  t.same(await readCapped(new Response(null, { status: 204 }), 100), Buffer.alloc(0));
  const declared = new Response('x'.repeat(10), { headers: { 'content-length': '1000' } });
  await t.rejects(readCapped(declared, 100), new BodyTooLarge(100, 1000));
  const streamed = await bigAnswers(t, 64 * MIB);
  await t.rejects(readCapped(await fetch(streamed.url), MIB), { name: 'BodyTooLarge', message: `more than ${MIB} bytes` });
  t.ok(streamed.sent() < 64 * MIB, `the server got to send ${streamed.sent()} of ${64 * MIB} bytes: the rest was never read`);
  t.equal(MAX_FORGE_ANSWER_BYTES, 4 * MIB);
});

t.test('cappedFetch: the answer handed on whole under the cap; past it, the fetch fails', async (t) => {
  const small = await bigAnswers(t, 1000, true);
  const res = await cappedFetch(MIB)(small.url, { redirect: 'manual' });
  t.equal(res.status, 200);
  t.equal((await res.text()).length, 1000);
  const big = await bigAnswers(t, 8 * MIB);
  await t.rejects(cappedFetch(MIB)(big.url, { redirect: 'manual' }), { name: 'BodyTooLarge' });
});

t.test('Forgejo: an answer past the cap fails the request (outcome unknown), not the pod', async (t) => {
  const big = await bigAnswers(t, 16 * MIB);
  const seen: Array<number | string> = [];
  const forgejo = new ForgejoClient({
    apiBase: `${big.url}/api/v1`,
    token: 'forgejo_token_0123456789',
    userAgent: 'gdb-test',
    maxAnswerBytes: MIB,
    observe: (_op, outcome) => seen.push(outcome),
  });
  const err = await forgejo.currentUser().then(
    () => undefined,
    (e: unknown) => e,
  );
  t.type(err, ForgeError);
  t.match((err as ForgeError).message, /the answer was too large \(more than 1048576 bytes\)/);
  t.equal((err as ForgeError).status, undefined, 'status unknown: a write may have gone through');
  t.same(seen, ['network']);
  t.ok(big.sent() < 16 * MIB, 'not read whole');
});

t.test('GitHub (octokit): an answer past the cap fails like a network failure', async (t) => {
  const big = await bigAnswers(t, 16 * MIB);
  const port = createDeploymentsPort(
    createOctokit({
      credentials: staticToken('ghp_test'),
      baseUrl: big.url,
      userAgent: 'gdb-test',
      metrics: createMetrics(),
      log: pino({ level: 'silent' }),
      health: new ForgeHealth({ auth: 'token', forge: 'GitHub', budgets: GITHUB_BUDGETS, now: Date.now }),
      scope: 'token',
      writeSpacing: new WriteSpacing(0),
      maxAnswerBytes: MIB,
    }),
  );
  const err = await port.listDeployments({ owner: 'acme', repo: 'web' }, { sha: 'a'.repeat(40), environment: 'production' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.match(err, { message: /network error: .*more than 1048576 bytes/ });
  t.ok(big.sent() < 16 * MIB, 'not read whole');
});
