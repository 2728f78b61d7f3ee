import t from 'tap';
import { escapeHtml, forgeLink, phaseOf, renderStatusPage } from '../../src/http/status-page.js';
import type { StateSnapshot } from '../../src/http/state-snapshot.js';

type Row = StateSnapshot['deployments'][number];
const XSS = '<img src=x onerror="alert(1)">&\'';
const row = (o: Partial<Row>): Row => ({
  forge: 'github',
  owner: 'acme',
  repo: 'web',
  environment: 'staging',
  sha: 'a'.repeat(40),
  deploymentName: 'web',
  deploymentId: 7,
  state: 'success',
  description: 'Deployed by Flux',
  workload: 'Deployment/apps/web',
  container: 'app',
  image: 'ghcr.io/acme/web:1',
  source: 'Kustomization/flux-system/web',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...o,
});
/** Only the parts of /state the page reads; the rest of the snapshot is not the renderer's business. */
const snapshot = (deployments: Row[], extra: Partial<StateSnapshot> = {}): StateSnapshot =>
  ({
    dryRun: false,
    deployments,
    skipped: [],
    queue: { pending: 0, active: 0, running: 0, items: [] },
    readiness: { ready: true, reasons: [] },
    ...extra,
  }) as unknown as StateSnapshot;

t.test('phaseOf: what a person reads for each state', (t) => {
  const rows: Array<[string, string]> = [
    ['success', 'live'],
    ['in_progress', 'rolling out'],
    ['queued', 'rolling out'],
    ['pending', 'rolling out'],
    ['provisional', 'rolling out'],
    ['failure', 'failed'],
    ['error', 'failed'],
    ['inactive', 'gone'],
    ['gone', 'gone'],
  ];
  for (const [state, phase] of rows) t.equal(phaseOf(state), phase, state);
  t.end();
});

t.test('forgeLink: GitHub deployments of the environment, Forgejo the commit; escaped path parts', (t) => {
  const links = { githubHost: 'github.com', forgejoUrl: 'https://forgejo.example.com/' };
  t.equal(forgeLink(row({ environment: 'pr 1/x' }), links), 'https://github.com/acme/web/deployments/pr%201%2Fx');
  t.equal(
    forgeLink(row({ forge: 'forgejo', sha: 'b'.repeat(40) }), links),
    `https://forgejo.example.com/acme/web/commit/${'b'.repeat(40)}`,
  );
  t.equal(forgeLink(row({}), {}), undefined, 'no link without the host');
  t.end();
});

t.test('escapeHtml', (t) => {
  t.equal(escapeHtml(XSS), '&#60;img src=x onerror=&#34;alert(1)&#34;&#62;&#38;&#39;');
  t.end();
});

t.test('renderStatusPage: per forge and environment, skips with reasons, the queue; workload text never becomes markup', (t) => {
  const html = renderStatusPage(
    snapshot(
      [
        row({ description: XSS, image: `ghcr.io/acme/web:${XSS}` }),
        row({ environment: 'production', state: 'failure' }),
        row({ forge: 'forgejo', environment: 'preview-pr-42', state: 'gone', deploymentId: undefined }),
      ],
      {
        skipped: [
          {
            source: 'Kustomization/flux-system/web',
            workload: `Deployment/apps/${XSS}`,
            container: null,
            code: 'no_repository',
            reason: XSS,
            since: null,
          },
        ],
        queue: {
          pending: 2,
          active: 1,
          running: 1,
          items: [{ kind: 'Kustomization', namespace: 'flux-system', name: 'web', state: 'pending', attempts: 3, notBefore: null }],
        },
      } as unknown as Partial<StateSnapshot>,
    ),
    { githubHost: 'github.com', forgejoUrl: 'https://forgejo.example.com' },
  );
  t.notMatch(html, /<img/, 'no injected element');
  t.notMatch(html, /onerror="/, 'no injected attribute');
  t.match(html, '&#60;img src=x onerror=&#34;alert(1)&#34;&#62;');
  t.match(html, '<h3>GitHub · staging</h3>');
  t.match(html, '<h3>GitHub · production</h3>');
  t.match(html, '<h3>Forgejo · preview-pr-42</h3>');
  t.match(html, /<tr class="live"><td><a href="https:\/\/github\.com\/acme\/web\/deployments\/staging">acme\/web<\/a>/);
  t.match(html, /<tr class="failed">/);
  t.match(html, /<tr class="gone"><td><a href="https:\/\/forgejo\.example\.com\/acme\/web\/commit\/a{40}">/);
  t.match(html, '<p id="queue">2 pending, 1 active, 1 running</p>');
  t.match(html, '<td>Kustomization/flux-system/web</td><td>pending</td><td>3</td>');
  t.notMatch(html, /<script/i, 'no script at all');
  t.end();
});
