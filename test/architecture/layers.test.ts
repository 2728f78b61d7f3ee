/**
 * The layering of src/, enforced: every module imports only from its own layer or the layers below it, no
 * two modules (nor two folders) import each other round in a cycle, and a forge's folder imports no other
 * forge's folder. The layers are written down here, once (CONTRIBUTING.md explains them); there are no exceptions.
 */
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { REPO_ROOT } from '../fixtures/locate.js';

/**
 * From the top down: a folder of src/ (or main.ts) may import from its own layer and every layer below. A folder
 * named here that src/ does not hold (yet) is no error.
 */
export const LAYERS: ReadonlyArray<readonly string[]> = [
  // The composition root.
  ['main.ts'],
  // The edges: what runs the reconciles, the HTTP server, the commands.
  ['runtime', 'http', 'cli'],
  // The settings, read by the edges; they read none of them.
  ['config'],
  // The spine (one reconcile, readiness) and the features beside it (features/<name>/); a feature never imports an edge.
  ['reconcile', 'health', 'features'],
  // The forge seam and one folder per forge.
  ['forges'],
  // The adapters: SQLite, Kubernetes, OCI registries, image facts.
  ['store', 'images', 'kube', 'oci'],
  // The pure core: delivery states, resolving a workload into a target.
  ['lifecycle', 'metadata'],
  // The shapes: Flux's and Kubernetes' objects and events.
  ['flux'],
  // What everything may use.
  ['common'],
];

const SRC = join(REPO_ROOT, 'src');

/** Every TypeScript module of src/, relative to it. */
function modules(dir = SRC): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return modules(path);
    return e.name.endsWith('.ts') ? [relative(SRC, path)] : [];
  });
}

/** The src/ modules one module imports (static, re-exports and dynamic imports of relative paths). */
export function importsOf(file: string, text: string): string[] {
  const specs = [
    ...text.matchAll(
      /(?:^|\n)\s*(?:import|export)\b[^'"`;]*?\bfrom\s+'([^']+)'|\bimport\s*\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s+'([^']+)'/g,
    ),
  ]
    .map((m) => m[1] ?? m[2] ?? m[3] ?? '')
    .filter((s) => s.startsWith('.'));
  return specs.map((s) => relative(SRC, resolve(dirname(join(SRC, file)), s)).replace(/\.js$/, '.ts'));
}

/** A module's folder under src/ (`forges`), or `main.ts`. */
const folderOf = (file: string): string => (file.includes('/') ? file.slice(0, file.indexOf('/')) : file);
/** A module's forge folder (`forges/github`), or undefined outside one. */
const forgeOf = (file: string): string | undefined => /^forges\/([^/]+)\//.exec(file)?.[1];

function layerOf(file: string): number {
  const at = LAYERS.findIndex((l) => l.includes(folderOf(file)));
  if (at < 0) throw new Error(`src/${file}: its folder is in no layer (add it to LAYERS in test/architecture/layers.test.ts)`);
  return at;
}

/** The cycles of a graph, each as the path that closes it (Tarjan's strongly connected components of more than one node). */
export function cyclesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    order.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!order.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, order.get(w)!));
    }
    if (low.get(v) !== order.get(v)) return;
    const component: string[] = [];
    for (let w = stack.pop()!; ; w = stack.pop()!) {
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    if (component.length > 1) out.push(component.sort());
  };
  for (const v of graph.keys()) if (!order.has(v)) visit(v);
  return out;
}

const files = modules();
const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(join(SRC, f), 'utf8')).filter((i) => files.includes(i))]));

t.test('every folder of src/ is in a layer, once', (t) => {
  const folders = [...new Set(files.map(folderOf))];
  for (const f of folders) t.equal(LAYERS.flat().filter((l) => l === f).length, 1, `${f} in exactly one layer`);
  t.end();
});

t.test('imports go only down the layers (or within one)', (t) => {
  const upward = [...graph].flatMap(([from, to]) =>
    to.filter((i) => layerOf(i) < layerOf(from)).map((i) => `src/${from} imports src/${i} (${folderOf(i)} is above ${folderOf(from)})`),
  );
  t.same(upward, [], 'no module imports from a layer above its own');
  t.end();
});

t.test('no import cycles, between modules nor between folders', (t) => {
  t.same(cyclesOf(graph), [], 'no module cycle');
  const folders = new Map<string, string[]>();
  for (const [from, to] of graph) {
    const deps = folders.get(folderOf(from)) ?? [];
    for (const i of to) if (folderOf(i) !== folderOf(from) && !deps.includes(folderOf(i))) deps.push(folderOf(i));
    folders.set(folderOf(from), deps);
  }
  t.same(cyclesOf(folders), [], 'no folder cycle (two folders of one layer import one way only)');
  t.end();
});

t.test("a forge's folder imports no other forge's folder; only the registry names the forges' folders", (t) => {
  const crossing = [...graph].flatMap(([from, to]) =>
    to
      .filter((i) => forgeOf(i) !== undefined && forgeOf(i) !== forgeOf(from) && from !== 'forges/registry.ts')
      .map((i) => `src/${from} imports src/${i}`),
  );
  t.same(crossing, [], 'forges/<name>/ is reached only through forges/registry.ts and the Forge interface');
  t.end();
});

t.test('the checks catch what they are for', (t) => {
  t.same(
    importsOf(
      'store/x.ts',
      `import type { A } from '../forges/forge.js';\nexport { b } from './y.js';\nconst c = await import('../common/z.js');`,
    ),
    ['forges/forge.ts', 'store/y.ts', 'common/z.ts'],
  );
  t.same(importsOf('a/b.ts', `import t from 'tap';\nimport { x } from 'node:fs';`), [], 'packages are not modules of src/');
  t.same(
    cyclesOf(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
      ]),
    ),
    [['a', 'b', 'c']],
  );
  t.same(
    cyclesOf(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  );
  t.equal(layerOf('common/errors.ts') > layerOf('forges/forge.ts'), true, 'common is below forges');
  t.equal(layerOf('forges/forge.ts') < layerOf('store/database.ts'), true, 'forges stand above the adapters');
  t.equal(layerOf('features/dora/x.ts') < layerOf('forges/forge.ts'), true, 'a feature may import the forge seam');
  t.equal(layerOf('features/dora/x.ts') > layerOf('http/http-app.ts'), true, 'a feature never imports an edge');
  t.equal(layerOf('config/settings.ts') > layerOf('http/webhook.ts'), true, 'config never imports an edge');
  t.end();
});
