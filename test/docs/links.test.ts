/**
 * Every relative link of the documents resolves: README.md, the top-level *.md, docs/*.md and the READMEs
 * under manifests/ link to files or folders that exist, and `#anchors` to headings they have (GitHub's
 * slugs). Links to other sites are not fetched.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../fixtures/locate.js';

/** The documents whose links are checked, relative to the repository root. */
function documents(): string[] {
  const top = readdirSync(REPO_ROOT).filter((f) => f.endsWith('.md'));
  const docs = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  const manifests = readdirSync(join(REPO_ROOT, 'manifests'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => `manifests/${f}`);
  return [...top, ...docs, ...manifests];
}

/** The text outside fenced code blocks and inline code, line by line. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').flatMap((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return [];
    }
    return fenced ? [] : [line.replace(/`[^`]*`/g, '')];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (not `-` or `_`), spaces as `-`. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file: its headings' slugs, repeated ones numbered as GitHub does. */
function anchors(path: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = fenced ? null : /^#{1,6} (.+)$/.exec(line);
    if (!m) continue;
    const base = slug(m[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

t.test('slugs as GitHub makes them', (t) => {
  t.equal(slug('Quickstart (in a cluster with Flux)'), 'quickstart-in-a-cluster-with-flux');
  t.equal(slug("Your app's side"), 'your-apps-side');
  t.equal(slug('Why is my workload not reported?'), 'why-is-my-workload-not-reported');
  t.equal(slug('`/readyz` during an outage'), 'readyz-during-an-outage');
  t.equal(slug('registry-secrets: what it grants'), 'registry-secrets-what-it-grants');
  t.equal(slug('1. Crash injection (`crash.test.ts`)'), '1-crash-injection-crashtestts');
  t.end();
});

t.test('every relative link of the documents resolves to a file, and every anchor to a heading', (t) => {
  const docs = documents();
  t.ok(docs.includes('README.md') && docs.includes('docs/configuration.md'), 'README and docs/ are checked');
  let checked = 0;
  for (const doc of docs) {
    const from = join(REPO_ROOT, doc);
    for (const line of prose(readFileSync(from, 'utf8'))) {
      for (const m of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        const target = m[1] ?? '';
        if (/^[a-z]+:/i.test(target)) continue; // https:, mailto:
        const [file = '', anchor] = target.split('#');
        const path = file === '' ? from : join(dirname(from), decodeURIComponent(file));
        checked++;
        if (!existsSync(path)) {
          t.fail(`${doc}: ${target}: no ${relative(REPO_ROOT, path)}`);
          continue;
        }
        if (anchor !== undefined && anchor !== '') {
          const known = statSync(path).isFile() && path.endsWith('.md') ? anchors(path) : new Set<string>();
          t.ok(known.has(anchor), `${doc}: ${target}: a heading #${anchor} in ${relative(REPO_ROOT, path)}`);
        }
      }
    }
  }
  t.ok(checked > 50, `links found (${checked})`);
  t.end();
});
