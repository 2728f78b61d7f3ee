/**
 * A hostile forge that serves page after page of comments (one once served 400 pages and the bridge grew 1.4 GiB):
 * every forge's comment list stops at LIST_CAP, with ListCapped, after a bounded number of requests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import t, { type Test } from 'tap';
import { createMetrics } from '../../src/common/metrics.js';
import { LIST_CAP, ListCapped } from '../../src/forges/comments-port.js';
import { createForgejoSide } from '../../src/forges/forgejo/forgejo-side.js';
import { parseForgejoUrl, type ForgejoLocation } from '../../src/forges/forgejo/forgejo-url.js';
import { createGitHubSide } from '../../src/forges/github/github-client.js';
import { InstallationStore } from '../../src/forges/github/installation-store.js';
import { createGitLabSide } from '../../src/forges/gitlab/gitlab-side.js';
import { parseGitLabUrl, type GitLabLocation } from '../../src/forges/gitlab/gitlab-url.js';
import { openDatabase } from '../harness/database.js';

const quiet = { userAgent: 'test', metrics: createMetrics(), log: pino({ level: 'silent' }), now: Date.now };
const user = { id: 1, login: 'bot', username: 'bot', type: 'User' };
const comment = (id: number) => ({ id, body: `<!-- x -->\n${'y'.repeat(200)}`, user, author: user, system: false });

/** A server whose every comment list is full and has a next page, forever; counts the list requests. */
async function hostile(t: Test, perPage: number): Promise<{ url: string; lists: () => number }> {
  let lists = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.setHeader('content-type', 'application/json');
    if (url.pathname.endsWith('/user')) return res.end(JSON.stringify(user));
    lists += 1;
    const page = Number(url.searchParams.get('page') ?? '1');
    res.setHeader('x-next-page', String(page + 1));
    res.setHeader('link', `<http://${req.headers.host}${url.pathname}?page=${page + 1}>; rel="next"`);
    res.end(JSON.stringify(Array.from({ length: perPage }, (_, i) => comment(page * 10_000 + i))));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lists: () => lists };
}

const repo = { owner: 'acme', repo: 'web' };

t.test('GitHub: page after full page', async (t) => {
  const h = await hostile(t, 100);
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const side = createGitHubSide({
    auth: { kind: 'token', token: 't' },
    baseUrl: h.url,
    installations: new InstallationStore(db),
    ...quiet,
  });
  await t.rejects(side.comments.listOwn(repo, 1), ListCapped);
  t.equal(h.lists(), LIST_CAP.pages, `${LIST_CAP.pages} pages read, no more`);
});

t.test('GitHub: one page far larger than asked', async (t) => {
  const h = await hostile(t, LIST_CAP.items + 1);
  const db = openDatabase(':memory:');
  t.teardown(() => db.close());
  const side = createGitHubSide({
    auth: { kind: 'token', token: 't' },
    baseUrl: h.url,
    installations: new InstallationStore(db),
    ...quiet,
  });
  await t.rejects(side.comments.listOwn(repo, 1), ListCapped);
  t.equal(h.lists(), 1);
});

t.test('GitLab: x-next-page forever', async (t) => {
  const h = await hostile(t, 100);
  const side = createGitLabSide({ location: parseGitLabUrl(h.url) as GitLabLocation, token: 't', ...quiet });
  await t.rejects(side.comments.listOwn(repo, 1), ListCapped);
  t.equal(h.lists(), LIST_CAP.pages);
});

t.test('Forgejo: one list of more than the cap', async (t) => {
  const h = await hostile(t, LIST_CAP.items + 1);
  const side = createForgejoSide({ location: parseForgejoUrl(h.url) as ForgejoLocation, token: 't', ...quiet });
  await t.rejects(side.comments.listOwn(repo, 1), ListCapped);
  t.equal(h.lists(), 1);
});
