import t from 'tap';
import { hostText, markdownLink, markdownText } from '../../../src/features/comments/comment-text.js';
import { commentMarker, isOwnComment, renderComment, rowWord, type CommentRow } from '../../../src/features/comments/comment-render.js';

const AT = Date.parse('2026-12-02T07:30:00Z');
const SHA = '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';
const row = (over: Partial<CommentRow> = {}): CommentRow => ({
  deploymentName: 'web',
  environment: 'pr-12',
  state: 'success',
  url: 'https://pr-12.preview.example.com/',
  sha: SHA,
  version: '1.4.2',
  digest: `sha256:${'ab'.repeat(32)}`,
  updatedAt: AT,
  ...over,
});

/** The table's row lines (after the header and the separator). */
const tableRows = (body: string) =>
  body.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| Deployment') && !l.startsWith('| ---'));
/** A row's cells, split at pipes that are not escaped. */
const cellsOf = (line: string) =>
  line
    .split(/(?<!\\)\|/)
    .slice(1, -1)
    .map((c) => c.trim());

t.test('one row per workload: name, environment, state, link while live, commit, image, time', (t) => {
  const body = renderComment('prod-eu', [row()]);
  t.equal(body.split('\n')[0], '<!-- github-deployment-bridge:cluster=prod-eu -->');
  t.same(cellsOf(tableRows(body)[0]!), [
    'web',
    'pr\\-12',
    'live',
    '[pr\\-12.preview.example.com](https://pr-12.preview.example.com/)',
    '`07a684d`',
    `1.4.2 \`sha256:${'ab'.repeat(6)}\``,
    '2026-12-02 07:30 UTC',
  ]);
  t.end();
});

t.test('state words, and the link only while live', (t) => {
  const rows: Array<[CommentRow['state'], string]> = [
    ['pending', 'rolling out'],
    ['in_progress', 'rolling out'],
    ['success', 'live'],
    ['failure', 'failed'],
    ['error', 'failed'],
    ['gone', 'gone'],
  ];
  for (const [state, word] of rows) {
    t.equal(rowWord(state), word, state);
    const cells = cellsOf(tableRows(renderComment('c', [row({ state })]))[0]!);
    t.equal(cells[2], word);
    t.equal(cells[3]!.includes('https://'), state === 'success', `${state}: link ${state === 'success' ? 'shown' : 'absent'}`);
  }
  const gone = renderComment('c', [row({ state: 'gone' }), row({ deploymentName: 'api', state: 'gone' })]);
  t.match(gone, /The preview is gone/, 'every row gone: says the preview is gone');
  t.notMatch(renderComment('c', [row(), row({ deploymentName: 'api', state: 'gone' })]), /The preview is gone/);
  t.end();
});

t.test('only http(s) URLs without credentials become links', (t) => {
  const rows: Array<[string, boolean]> = [
    ['https://a.example/x', true],
    ['http://a.example:8080/', true],
    ['javascript:alert(1)', false],
    ['data:text/html,<script>', false],
    ['ftp://a.example/', false],
    ['https://user:pw@a.example/', false],
    ['not a url', false],
    [`https://a.example/${'x'.repeat(600)}`, false],
  ];
  for (const [url, linked] of rows) t.equal(markdownLink(url) !== undefined, linked, url.slice(0, 40));
  t.equal(
    markdownLink('https://a.example/a)b(c|d'),
    '[a.example](https://a.example/a%29b%28c%7Cd)',
    'parens and pipes cannot end the link',
  );
  t.end();
});

t.test("the whole comment stays under the forge's limit, with a line counting the rows left out", (t) => {
  // Escaping makes hostile text longer: `#` becomes three characters; 50 such rows were 75,000 characters.
  const loud = '#'.repeat(80);
  const rows = Array.from({ length: 50 }, (_, i) =>
    row({ deploymentName: `${i}${loud}`, environment: loud, version: loud, url: `https://${'h'.repeat(60)}.example/${'p'.repeat(400)}` }),
  );
  for (const max of [65_536, 16_000, 3_000]) {
    const body = renderComment('prod', rows, max);
    t.ok(body.length <= max, `${body.length} <= ${max}`);
    const shown = tableRows(body).length;
    t.ok(shown > 0 && shown < 50, `${shown} rows shown`);
    t.match(body, new RegExp(`…and ${50 - shown} more workloads, not shown\\.\\n$`), 'the rest counted');
  }
  t.equal(tableRows(renderComment('prod', [row(), row({ deploymentName: 'api' })], 65_536)).length, 2, 'a short comment shows every row');
  t.end();
});

t.test("a link's text keeps the real host visible, however long its subdomain", (t) => {
  const long = `${'a'.repeat(63)}.${'b'.repeat(40)}.evil.example`;
  const rows: Array<[string, string]> = [
    ['pr-1.preview.example.com', 'pr-1.preview.example.com'],
    ['x'.repeat(80), 'x'.repeat(80)],
    [long, `…${long.slice(-79)}`],
  ];
  for (const [host, text] of rows) t.equal(hostText(host), text, host.slice(0, 30));
  const link = markdownLink(`https://${long}/`) ?? '';
  t.match(link, /^\[….*\.evil\.example\]\(https:\/\//, 'the registrable name ends the text');
  t.ok(Array.from(link.slice(1, link.indexOf(']')).replace(/\\/g, '')).length <= 80, 'at most 80 characters shown');
  t.end();
});

t.test('the marker: per cluster, escaped, and recognised only as the first line', (t) => {
  t.equal(commentMarker('a --> b'), '<!-- github-deployment-bridge:cluster=a%20--%3E%20b -->', 'a cluster name cannot end the comment');
  t.ok(isOwnComment(renderComment('prod', []), 'prod'));
  t.notOk(isOwnComment(renderComment('prod', []), 'staging'), "another cluster's comment is not ours");
  t.notOk(isOwnComment(`hello\n${commentMarker('prod')}`, 'prod'), 'a quote of the marker further down is not ours');
  t.end();
});

const HOSTILE = [
  '@acme/everyone please look',
  'x | y | z',
  'line one\nline two\r\n| forged | row |',
  '[click me](https://evil.example/steal)',
  '![pixel](https://evil.example/track.png)',
  '<img src=x onerror=alert(1)>',
  '<!-- github-deployment-bridge:cluster=prod -->',
  '`code` **bold** _it_ ~~s~~',
  'see https://evil.example and www.evil.example',
  'fixes #1 and acme/web#2',
  '\u202Egnp.exe\u0007',
  'x'.repeat(5000),
];

t.test('hostile text cannot ping, link, inject HTML or break the table', (t) => {
  for (const hostile of HOSTILE) {
    const body = renderComment('prod', [
      row({ deploymentName: hostile, environment: hostile, version: hostile, url: `https://ok.example/${hostile}`, digest: hostile }),
    ]);
    const lines = tableRows(body);
    const label = JSON.stringify(hostile.slice(0, 30));
    t.equal(lines.length, 1, `${label}: one row line`);
    const cells = cellsOf(lines[0]!);
    t.equal(cells.length, 7, `${label}: seven cells`);
    for (const cell of [cells[0]!, cells[1]!, cells[5]!]) {
      t.notMatch(cell, /@(?!\u200D)/, `${label}: no mention`);
      t.notMatch(cell, /(?<!\\)[[\]()<>|]/, `${label}: no unescaped bracket, angle or pipe`);
      t.notMatch(cell, /https?:\/\/|www\./i, `${label}: no autolink`);
      t.notMatch(cell, /(?<!\\)#(?!\u200D)/, `${label}: no issue reference`);
      t.notOk(cell.includes('\u202E') || cell.includes('\u0007'), `${label}: no control or bidi character`);
      t.ok(cell.length < 500, `${label}: bounded`);
    }
    t.equal(body.split('\n').filter((l) => l.startsWith('<!--')).length, 1, `${label}: one marker`);
    t.ok(isOwnComment(body, 'prod'));
  }
  t.end();
});

t.test('rows in a stable order; long tables are cut and counted', (t) => {
  const a = renderComment('c', [row({ deploymentName: 'b' }), row({ deploymentName: 'a' })]);
  const b = renderComment('c', [row({ deploymentName: 'a' }), row({ deploymentName: 'b' })]);
  t.equal(a, b, 'the same rows render the same text');
  const many = renderComment(
    'c',
    Array.from({ length: 60 }, (_, i) => row({ deploymentName: `w${String(i).padStart(2, '0')}` })),
  );
  t.equal(tableRows(many).length, 50);
  t.match(many, /and 10 more workloads/);
  t.equal(markdownText('plain', 80), 'plain');
  t.end();
});
