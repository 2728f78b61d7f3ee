import t from 'tap';
import { escapeHtml, phaseOf, renderStatusPage } from '../../src/http/status-page.js';
import type { StateSnapshot } from '../../src/http/state-snapshot.js';
import type { PageSection } from '../../src/features/feature.js';
import { doraPage } from '../../src/features/dora/dora-section.js';
import { commentsPage } from '../../src/features/comments/comments-section.js';

/** The features' sections, at their places (the DORA figures after the deployments, the comments at the end). */
const PAGES: PageSection[] = [
  { place: 'deployments', render: doraPage },
  { place: 'queue', render: commentsPage },
];

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
  t.equal(phaseOf('gone', 'Superseded by 3f2a9c1'), 'superseded', 'ended by a newer commit');
  t.equal(phaseOf('gone', 'Deployment apps/web no longer exists'), 'gone', 'its workload gone');
  t.equal(phaseOf('success', 'Superseded by 3f2a9c1'), 'live', 'only an ended row is superseded');
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
  t.match(html, /<tr class="live"><td class="long"><a href="https:\/\/github\.com\/acme\/web\/deployments\/staging">acme\/web<\/a>/);
  t.match(html, /<tr class="failed">/);
  t.match(html, /<tr class="gone"><td class="long"><a href="https:\/\/forgejo\.example\.com\/acme\/web\/commit\/a{40}">/);
  t.match(
    html,
    '<span class="phase">gone</span> <span class="word">success (Deployment gone)</span>',
    "the neutral phase, then the forge's own word",
  );
  t.match(html, '<h3>gitlab · review</h3>', 'a forge without a title: its name');
  t.match(html, 'href="https://gitlab.example.com/x?&#60;img', "the forge's link is escaped too");
  t.match(html, '<p id="queue">2 pending, 1 active, 1 running</p>');
  t.match(html, '<td class="long">Kustomization/flux-system/web</td><td>pending</td><td>3</td>');
  t.notMatch(html, /<script/i, 'no script at all');
  t.end();
});

t.test('renderStatusPage: each forge write backlog and the pull request comments, escaped; absent when not kept', (t) => {
  const plain = renderStatusPage(snapshot([row({})]), { github: 'GitHub' }, undefined, PAGES);
  t.notMatch(plain, 'Write budget', 'no forge with a budget: no section');
  t.notMatch(plain, 'Pull request comments', 'comments off: no section');
  const html = renderStatusPage(
    snapshot([row({})], {
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
    undefined,
    PAGES,
    [
      {
        title: 'GitHub',
        view: {
          budget: '80/1m,500/1h',
          scopes: [
            {
              scope: `installation:42${XSS}`,
              waiting: 17,
              oldestWaitingSince: '2026-01-01T00:00:00.000Z',
              oldestWaitingSeconds: 95,
              budgetFreesAt: '2026-01-01T00:01:00.000Z',
              drainsInSeconds: 840,
            },
          ],
        },
      },
    ],
  );
  t.match(html, '<h2>Write budget</h2>');
  t.match(html, '<h3>GitHub · 80/1m,500/1h</h3>');
  t.match(html, '<td>17</td><td>95 s</td><td>2026-01-01 00:01 UTC</td><td>840 s</td>');
  t.match(html, '<td>GitHub</td><td>acme/web</td><td>#12</td><td>prod</td><td>written 2026-01-01 00:00 UTC</td>');
  t.match(html, '<td>Forgejo</td><td>acme/shop</td><td>#3</td><td>prod</td><td>skipped: &#60;img');
  t.match(html, '<td>being created</td>', 'a pending create says so before an edit due');
  t.notMatch(html, /<img/, 'no injected element from a scope or a reason');
  t.end();
});

t.test('the header line: state, cluster, version, each forge credentials; Kubernetes unreachable is degraded, never "ready"', (t) => {
  const kubeDown = snapshot([], {
    bridge: { version: '0.1.0', cluster: `prod-eu${XSS}` },
    readiness: { ready: true, reasons: [], degraded: ['Kubernetes API has not answered yet: connect ECONNREFUSED 10.0.0.1:443'] },
    github: { credentials: { state: 'ok' } },
    gitlab: { credentials: { state: 'rejected' } },
  } as unknown as Partial<StateSnapshot>);
  const html = renderStatusPage(kubeDown, { github: 'GitHub', gitlab: 'GitLab' });
  const summary = /<p id="summary">(.*?)<\/p>/.exec(html)?.[1] ?? '';
  t.match(summary, /^<b class="overall degraded">degraded<\/b> · cluster <b>prod-eu&#60;img/);
  t.match(summary, ' · version 0.1.0 · GitHub: credentials accepted · GitLab: credentials rejected');
  t.notMatch(summary, /\bready\b/);
  t.match(
    html,
    /<div id="problems"><h2>Degraded<\/h2>.*<li>Kubernetes API has not answered yet: connect ECONNREFUSED 10\.0\.0\.1:443<\/li>/,
  );
  t.match(html, '<h2>Deployments now</h2>\n<p class="none">none known: the bridge is not healthy (above)');
  t.notMatch(html, '<p class="none">none</p>\n<h2>History', 'not a plain "none" while degraded');
  t.notMatch(html, /<img/);

  const notReady = renderStatusPage(
    snapshot([], { readiness: { ready: false, reasons: ['GitLab credentials rejected: 401'], degraded: [] } }),
    {},
  );
  t.match(notReady, '<b class="overall not-ready">not ready</b>');
  t.match(notReady, '<h2>Not ready</h2><ul><li>GitLab credentials rejected: 401</li></ul>');
  t.notMatch(notReady, '<h2>Degraded</h2>');

  const fine = renderStatusPage(snapshot([row({})], { dryRun: true }), { github: 'GitHub' });
  t.match(
    fine,
    '<p id="summary"><b class="overall ready">ready</b> · GitHub: credentials unknown · dry run: nothing is written to the forges</p>',
  );
  t.notMatch(fine, 'id="problems"', 'nothing wrong: no block');
  t.end();
});

t.test('live deployments first, then the history; superseded said so; no "gone gone"; readable times', (t) => {
  const now = Date.parse('2026-01-01T00:10:00.000Z');
  const html = renderStatusPage(
    snapshot([
      row({ state: 'gone', forgeState: 'inactive', sha: 'b'.repeat(40), description: 'Superseded by aaaaaaa' }),
      row({
        forge: 'gitlab',
        environment: 'review',
        state: 'gone',
        forgeState: 'gone',
        description: 'Deployment apps/web no longer exists',
      }),
      row({ description: `main@sha1:${'c'.repeat(40)}` }),
    ]),
    { github: 'GitHub', gitlab: 'GitLab' },
    now,
  );
  const current = html.indexOf('<h2>Deployments now</h2>');
  const history = html.indexOf('<h2>History</h2>');
  t.ok(current > 0 && history > current, 'now before history');
  t.ok(html.indexOf('<tr class="live">') > current && html.indexOf('<tr class="live">') < history, 'the live row first');
  t.ok(html.indexOf('<tr class="superseded">') > history, 'the superseded one in the history');
  t.match(html, '<span class="phase">superseded</span> <span class="word">inactive</span>', "superseded, then GitHub's word");
  t.match(html, '<tr class="gone">');
  t.notMatch(html, /gone<\/span> <span class="word">gone/, 'the word once');
  t.match(html, '<td><time datetime="2026-01-01T00:00:00.000Z">2026-01-01 00:00 UTC (10 min ago)</time></td>');
  t.match(html, 'td.long{overflow-wrap:anywhere}', 'long words wrap');
  t.end();
});

t.test('the DORA summary: per repository and environment, unknown figures as —', (t) => {
  const html = renderStatusPage(
    snapshot([], {
      dora: {
        windowDays: 30,
        environments: [
          {
            forge: 'gitlab',
            repository: 'platform/team/app',
            environment: 'production',
            deploymentsPerDay: 0.1,
            deploymentsPerWeek: 0.7,
            leadTimeMedianSeconds: 5400,
            changeFailureRate: 0.25,
            timeToRestoreMedianSeconds: null,
            deployments: 4,
            failedChanges: 1,
            unrestored: 1,
          },
        ],
      },
    } as unknown as Partial<StateSnapshot>),
    { gitlab: 'GitLab' },
    undefined,
    PAGES,
  );
  t.match(html, '<h2>DORA, the last 30 days</h2>');
  t.match(html, '<td>GitLab</td><td>platform/team/app</td><td>production</td><td>4</td><td>1.5 h</td><td>25% (1/4)</td><td>—</td>');
  t.notMatch(renderStatusPage(snapshot([]), {}, undefined, PAGES), 'DORA', 'not computed: no section');
  const empty = renderStatusPage(
    snapshot([], { dora: { windowDays: 30, environments: [] } } as unknown as Partial<StateSnapshot>),
    {},
    undefined,
    PAGES,
  );
  t.match(empty, 'none yet: no finished deployment in a counted environment (production, or DORA_ENVIRONMENTS)');
  t.end();
});
