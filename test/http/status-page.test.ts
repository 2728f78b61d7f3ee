import t from 'tap';
import { escapeHtml, phaseOf, renderStatusPage } from '../../src/http/status-page.js';
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
  forgeState: 'success',
  url: 'https://github.com/acme/web/deployments/staging',
  description: 'Deployed by Flux',
  workload: 'Deployment/apps/web',
  container: 'app',
  image: 'ghcr.io/acme/web:1',
  fluxObject: 'Kustomization/flux-system/web',
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
    ['pending', 'rolling out'],
    ['provisional', 'rolling out'],
    ['failure', 'failed'],
    ['error', 'failed'],
    ['gone', 'gone'],
  ];
  for (const [state, phase] of rows) t.equal(phaseOf(state), phase, state);
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
        row({
          forge: 'forgejo',
          environment: 'preview-pr-42',
          state: 'gone',
          forgeState: 'success (Deployment gone)',
          deploymentId: undefined,
          url: `https://forgejo.example.com/acme/web/commit/${'a'.repeat(40)}`,
        }),
        row({ forge: 'gitlab', environment: 'review', state: 'gone', forgeState: 'canceled', url: `https://gitlab.example.com/x?${XSS}` }),
      ],
      {
        skipped: [
          {
            fluxObject: 'Kustomization/flux-system/web',
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
    { github: 'GitHub', forgejo: 'Forgejo' },
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
  t.match(html, '<span class="phase">gone</span> success (Deployment gone)', "the neutral phase, then the forge's own word");
  t.match(html, '<h3>gitlab · review</h3>', 'a forge without a title: its name');
  t.match(html, 'href="https://gitlab.example.com/x?&#60;img', "the forge's link is escaped too");
  t.match(html, '<p id="queue">2 pending, 1 active, 1 running</p>');
  t.match(html, '<td>Kustomization/flux-system/web</td><td>pending</td><td>3</td>');
  t.notMatch(html, /<script/i, 'no script at all');
  t.end();
});

t.test('renderStatusPage: each forge write backlog and the pull request comments, escaped; absent when not kept', (t) => {
  const plain = renderStatusPage(snapshot([row({})]), { github: 'GitHub' });
  t.notMatch(plain, 'Write budget', 'no forge with a budget: no section');
  t.notMatch(plain, 'Pull request comments', 'comments off: no section');
  const html = renderStatusPage(
    snapshot([row({})], {
      github: {
        writeBudget: {
          budget: '80/1m,500/1h',
          scopes: [
            {
              scope: `installation:42${XSS}`,
              waiting: 17,
              oldestWaitingSeconds: 95,
              budgetFreesAt: '2026-01-01T00:01:00.000Z',
              drainsInSeconds: 840,
            },
          ],
        },
      },
      pullRequestComments: [
        {
          forge: 'github',
          repository: 'acme/web',
          pullRequest: 12,
          cluster: 'prod',
          commentId: 5,
          pending: false,
          due: false,
          skipReason: null,
          writtenAt: '2026-01-01T00:00:00.000Z',
        },
        {
          forge: 'forgejo',
          repository: 'acme/shop',
          pullRequest: 3,
          cluster: 'prod',
          commentId: null,
          pending: false,
          due: false,
          skipReason: XSS,
          writtenAt: null,
        },
        {
          forge: 'github',
          repository: 'acme/api',
          pullRequest: 4,
          cluster: 'prod',
          commentId: null,
          pending: true,
          due: true,
          skipReason: null,
          writtenAt: null,
        },
      ],
    } as unknown as Partial<StateSnapshot>),
    { github: 'GitHub', forgejo: 'Forgejo' },
  );
  t.match(html, '<h2>Write budget</h2>');
  t.match(html, '<h3>GitHub · 80/1m,500/1h</h3>');
  t.match(html, '<td>17</td><td>95 s</td><td>2026-01-01T00:01:00.000Z</td><td>840 s</td>');
  t.match(html, '<td>GitHub</td><td>acme/web</td><td>#12</td><td>prod</td><td>written 2026-01-01T00:00:00.000Z</td>');
  t.match(html, '<td>Forgejo</td><td>acme/shop</td><td>#3</td><td>prod</td><td>skipped: &#60;img');
  t.match(html, '<td>being created</td>', 'a pending create says so before an edit due');
  t.notMatch(html, /<img/, 'no injected element from a scope or a reason');
  t.end();
});
