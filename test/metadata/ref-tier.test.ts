import t from 'tap';
import { gitRefProblem, MAX_REF_CHARS, parseRef, targetRef, targetTier } from '../../src/metadata/ref-tier.js';

t.test('gitRefProblem: the rules of git check-ref-format', (t) => {
  const ok = ['main', 'feature/x', 'release-1.2', 'v1.2.0', 'user@host', 'a.b/c_d', 'x'.repeat(MAX_REF_CHARS)];
  for (const name of ok) t.equal(gitRefProblem(name), undefined, name.slice(0, 20));
  const bad: [string, RegExp][] = [
    ['', /empty/],
    ['x'.repeat(MAX_REF_CHARS + 1), /longer than 255/],
    ['@', /"@"/],
    ['has space', /U\+0020/],
    ['tab\there', /U\+0009/],
    ['new\nline', /U\+000A/],
    ['del\u007f', /U\+007F/],
    ['a~1', /"~"/],
    ['a^2', /"\^"/],
    ['a:b', /":"/],
    ['a?b', /"\?"/],
    ['a*b', /"\*"/],
    ['a[b', /"\["/],
    ['a\\b', /has "\\"/],
    ['a..b', /"\.\."/],
    ['a@{1}', /"@\{"/],
    ['-x', /starts with "-"/],
    ['/x', /empty path component/],
    ['x/', /empty path component/],
    ['a//b', /empty path component/],
    ['x.', /ends with "\."/],
    ['a/.hidden', /component ".hidden"/],
    ['a/b.lock', /component "b.lock"/],
  ];
  for (const [name, want] of bad) t.match(gitRefProblem(name), want, JSON.stringify(name.slice(0, 20)));
  t.end();
});

t.test('parseRef: refs/heads/ dropped, refs/tags/ a tag, trimmed', (t) => {
  const rows: [string, unknown][] = [
    ['main', { ref: 'main', tag: false }],
    [' feature/x ', { ref: 'feature/x', tag: false }],
    ['refs/heads/main', { ref: 'main', tag: false }],
    ['refs/tags/v1.2.0', { ref: 'v1.2.0', tag: true }],
  ];
  for (const [value, want] of rows) t.same(parseRef(value), want, value);
  t.match(parseRef('refs/tags/'), { problem: /empty path component/ });
  t.match(parseRef('a b'), { problem: /U\+0020/ });
  t.end();
});

t.test('targetRef: the workload annotation, else the Flux branch, else none; invalid ones dropped with a warning', (t) => {
  const rows: [string, string | undefined, string | undefined, unknown][] = [
    ['annotation wins', 'release', 'feat', { ref: { ref: 'release', tag: false, from: 'annotation' }, warnings: [] }],
    ['annotated tag', 'refs/tags/v2', undefined, { ref: { ref: 'v2', tag: true, from: 'annotation' }, warnings: [] }],
    ['the Flux branch', undefined, 'feature/x', { ref: { ref: 'feature/x', tag: false, from: 'flux' }, warnings: [] }],
    ['a blank annotation counts as none', '  ', 'feature/x', { ref: { ref: 'feature/x', tag: false, from: 'flux' }, warnings: [] }],
    ['neither', undefined, undefined, { warnings: [] }],
  ];
  for (const [name, a, f, want] of rows) t.same(targetRef(a, f), want, name);
  const bad = targetRef('no good', 'feature/y');
  t.same(bad.ref, { ref: 'feature/y', tag: false, from: 'flux' }, 'a bad annotation falls through to the Flux branch');
  t.match(bad.warnings, [/ref dropped: the github-deployment-bridge.io\/ref annotation "no good" has U\+0020/]);
  const both = targetRef('a..b', 'c~d');
  t.equal(both.ref, undefined);
  t.match(both.warnings, [/annotation "a\.\.b"/, /event\.toolkit\.fluxcd\.io\/branch annotation of the Flux object "c~d"/]);
  t.end();
});

t.test('targetTier: production for a production environment, else the annotation, else none', (t) => {
  const rows: [boolean, string | undefined, unknown][] = [
    [true, undefined, { tier: 'production' }],
    [true, 'staging', { tier: 'production' }],
    [false, ' Staging ', { tier: 'staging' }],
    [false, 'other', { tier: 'other' }],
    [false, undefined, {}],
    [false, '', {}],
  ];
  for (const [production, a, want] of rows) t.same(targetTier(production, a), want, `${production} ${a}`);
  t.match(targetTier(false, 'prod'), {
    warning: /tier dropped: github-deployment-bridge.io\/tier "prod" is not one of production, staging/,
  });
  t.end();
});
