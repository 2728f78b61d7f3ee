/**
 * The status page in a real browser (Debian's headless `chromium`), 1280 px wide, with hostile workload strings:
 * nothing they carry becomes markup, and the page is no wider than the window (long revisions, image references
 * and reasons wrap). A same-origin wrapper page measures the page in an iframe and writes what it found into its
 * own DOM, which `--dump-dom` prints.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import type { StateSnapshot } from '../../src/http/state-snapshot.js';
import { renderStatusPage } from '../../src/http/status-page.js';

const WIDTH = 1280;
const XSS = '<img src=x onerror="document.title=\'owned\'"><script>document.title="owned"</script>';
const LONG_WORD = `main@sha1:${'0123456789abcdef'.repeat(2)}${'f'.repeat(8)}`;
const ENDLESS = 'x'.repeat(400);

const row = (i: number, o: Record<string, unknown>) => ({
  forge: i % 2 ? 'gitlab' : 'github',
  owner: i % 2 ? 'platform/team' : 'acme',
  repo: `web${XSS}`,
  environment: `production/eu-${i}`,
  sha: 'a'.repeat(40),
  deploymentName: 'web',
  state: 'success',
  forgeState: 'success',
  url: `https://example.com/x?q=${encodeURIComponent(XSS)}`,
  description: `Flux applied ${LONG_WORD} ${XSS}`,
  workload: `Deployment/apps/${ENDLESS}`,
  container: 'app',
  image: `registry.example.com/${'very-long-path/'.repeat(12)}web@sha256:${'e'.repeat(64)}`,
  fluxObject: 'Kustomization/flux-system/apps',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...o,
});

const state = {
  bridge: { version: `0.1.0${XSS}`, cluster: `prod-eu${XSS}` },
  dryRun: false,
  deployments: [
    row(0, {}),
    row(1, { state: 'in_progress', forgeState: 'running' }),
    row(2, { state: 'gone', forgeState: 'inactive', description: 'Superseded by bbbbbbb' }),
    row(3, { state: 'gone', forgeState: 'gone' }),
  ],
  skipped: [
    {
      fluxObject: 'Kustomization/flux-system/apps',
      workload: `Deployment/apps/${XSS}`,
      container: null,
      code: 'no_repository',
      reason: ENDLESS,
      since: null,
    },
  ],
  queue: {
    pending: 1,
    active: 0,
    running: 0,
    items: [{ kind: 'Kustomization', namespace: 'apps', name: ENDLESS, state: 'pending', attempts: 2, notBefore: null }],
  },
  readiness: { ready: true, reasons: [], degraded: [`Kubernetes API has not answered yet: ${ENDLESS}${XSS}`] },
  github: { credentials: { state: 'ok' } },
  gitlab: { credentials: { state: 'unreachable' } },
} as unknown as StateSnapshot;

const WRAPPER = `<!doctype html><html><body style="margin:0">
<iframe id="page" src="/page" style="width:${WIDTH}px;height:900px;border:0"></iframe>
<pre id="result"></pre>
<script>
document.getElementById('page').addEventListener('load', () => {
  const d = document.getElementById('page').contentDocument;
  document.getElementById('result').textContent = JSON.stringify({
    scrollWidth: d.documentElement.scrollWidth,
    widest: Math.max(...[...d.querySelectorAll('table')].map((e) => e.getBoundingClientRect().right)),
    injected: d.querySelectorAll('img, script, iframe').length,
    title: d.title,
    summary: d.getElementById('summary').textContent,
    headings: [...d.querySelectorAll('h2')].map((h) => h.textContent),
  });
});
</script></body></html>`;

t.test(`the status page in Chromium at ${WIDTH} px: hostile strings stay text, nothing wider than the window`, async (t) => {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(
      req.url === '/page' ? renderStatusPage(state, { github: 'GitHub', gitlab: 'GitLab' }, Date.parse('2026-01-01T01:00:00Z')) : WRAPPER,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close());
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
  t.teardown(() => rmSync(profile, { recursive: true, force: true }));
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'];
  flags.push('--disable-component-update', '--disable-sync', '--hide-scrollbars', `--user-data-dir=${profile}`);
  flags.push(`--window-size=${WIDTH + 100},1000`, '--virtual-time-budget=10000', '--dump-dom', `http://127.0.0.1:${port}/`);
  const { stdout } = await promisify(execFile)('/usr/bin/chromium', flags, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
  const json = /<pre id="result">(.*?)<\/pre>/s.exec(stdout)?.[1] ?? '';
  t.ok(json, 'the wrapper measured the page');
  const found = JSON.parse(json.replaceAll('&quot;', '"').replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&')) as {
    scrollWidth: number;
    widest: number;
    injected: number;
    title: string;
    summary: string;
    headings: string[];
  };
  t.equal(found.injected, 0, 'no element from a workload string');
  t.equal(found.title, 'github-deployment-bridge', 'no script ran');
  t.ok(found.scrollWidth <= WIDTH, `no horizontal scroll: ${found.scrollWidth} px`);
  t.ok(found.widest <= WIDTH, `every table inside the window: ${found.widest} px`);
  t.match(found.summary, /^degraded · cluster prod-eu<img src=x/, 'the header line, its text as text');
  t.match(found.summary, 'GitHub: credentials accepted · GitLab: credentials not checked: forge unreachable');
  t.same(found.headings.slice(0, 3), ['Degraded', 'Deployments now', 'History']);
});
