import t from 'tap';
import { CommitBook } from './commit-book.js';

const SHA = 'A'.repeat(40);
const READ = /^\/repos\/[^/]+\/[^/]+\/git\/commits\/[^/]+$/;

t.test('the default date: as given, else an hour before the start in whole seconds', (t) => {
  const rows: Array<[string | undefined, number, string]> = [
    [undefined, Date.parse('2026-12-01T12:00:00.999Z'), '2026-12-01T11:00:00Z'],
    [undefined, Date.parse('2026-12-01T00:30:00Z'), '2026-11-30T23:30:00Z'],
    ['2026-01-02T03:04:05+01:00', 0, '2026-01-02T03:04:05+01:00'],
  ];
  for (const [given, start, want] of rows) t.equal(new CommitBook(given, start, READ).defaultDate, want, `${given} ${start}`);
  t.throws(() => new CommitBook('yesterday', 0, READ), /not an ISO 8601 date/);
  t.end();
});

t.test('registered, missing and every other commit; names and SHAs ignore case; clear forgets', (t) => {
  const book = new CommitBook('2026-11-01T00:00:00Z', 0, READ);
  book.commit('Acme', 'Web', SHA, { committedAt: '2026-11-30T10:00:00Z' });
  book.missingCommit('acme', 'web', 'b'.repeat(40));
  t.same(book.dates('acme/web', SHA.toLowerCase()), { committedAt: '2026-11-30T10:00:00Z', authoredAt: '2026-11-30T10:00:00Z' });
  t.equal(book.dates('ACME/web', 'b'.repeat(40)), undefined);
  t.same(book.dates('acme/api', SHA), { committedAt: '2026-11-01T00:00:00Z', authoredAt: '2026-11-01T00:00:00Z' }, 'another repository');
  book.commit('acme', 'web', 'b'.repeat(40), { committedAt: '2026-11-02T00:00:00Z', authoredAt: '2026-11-01T12:00:00Z' });
  t.same(
    book.dates('acme/web', 'b'.repeat(40)),
    { committedAt: '2026-11-02T00:00:00Z', authoredAt: '2026-11-01T12:00:00Z' },
    'registered again',
  );
  t.throws(() => book.commit('acme', 'web', SHA, { committedAt: 'soon' }), /not an ISO 8601 date/);
  book.missingCommit('acme', 'web', SHA);
  book.clear();
  t.same(book.dates('acme/web', SHA)?.committedAt, '2026-11-01T00:00:00Z');
  t.end();
});

t.test('reads: GET on the forge read path only', (t) => {
  const book = new CommitBook(undefined, 0, READ);
  t.ok(book.isRead({ method: 'GET', path: `/repos/a/b/git/commits/${SHA}` }));
  t.notOk(book.isRead({ method: 'POST', path: `/repos/a/b/git/commits/${SHA}` }));
  t.notOk(book.isRead({ method: 'GET', path: `/repos/a/b/commits/${SHA}` }));
  t.end();
});
