/**
 * Tests stand beside their code: test/ mirrors src/. Every file under test/, outside the cross-cutting folders
 * listed here, is in a folder that src/ has; and a test named for a module of src/ is in that module's folder
 * (src/<folder>/<name>.ts is tested by test/<folder>/<name>.test.ts, never from where the module once was).
 */
import t from 'tap';
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { REPO_ROOT } from '../fixtures/locate.js';

/** The folders of test/ that test no one folder of src/, so mirror none. */
export const CROSS_CUTTING: readonly string[] = [
  'architecture', // these checks and the layering
  'harness', // forge simulators, the fake Kubernetes API, the bridge as a process
  'fixtures', // API descriptions and sample data
  'e2e', // the built bridge in a simulated world
  'reliability', // crashes, outages, load
  'docs', // the documents
  'manifests', // the Kubernetes manifests, rendered
  'container', // the container image
  'monitoring', // the alerts and the dashboard against /metrics
  'scripts', // scripts/
];

const SRC = join(REPO_ROOT, 'src');
const TEST = join(REPO_ROOT, 'test');

/** Every file under a folder, relative to it. */
function filesUnder(root: string, dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(root, join(dir, e.name)) : [relative(root, join(dir, e.name))],
  );
}

/** The folder a path is in, `.` at the top. */
const folderOf = (path: string): string => dirname(path);
/** The top folder of a path under test/, or `.` for a file at the top. */
const topOf = (path: string): string => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '.');

/**
 * What is out of place among test/'s files (relative to test/), given src/'s modules (relative to src/): one
 * line each, saying where the file belongs.
 */
export function misplacedTests(testFiles: readonly string[], srcModules: readonly string[]): string[] {
  const srcFolders = new Set(srcModules.map(folderOf));
  const problems: string[] = [];
  for (const file of testFiles) {
    if (CROSS_CUTTING.includes(topOf(file))) continue;
    if (!srcFolders.has(folderOf(file))) {
      problems.push(
        `test/${file}: src/${folderOf(file)}/ does not exist (tests mirror src/; a cross-cutting folder is listed in CROSS_CUTTING)`,
      );
      continue;
    }
    if (!file.endsWith('.test.ts')) continue;
    const name = basename(file, '.test.ts');
    const homes = srcModules.filter((m) => basename(m, '.ts') === name).map(folderOf);
    if (homes.length > 0 && !homes.includes(folderOf(file)))
      problems.push(
        `test/${file} is named for src/${homes[0]}/${name}.ts: move it to test/${homes[0]}/${name}.test.ts (or name it for what it tests)`,
      );
  }
  return problems;
}

const srcModules = filesUnder(SRC).filter((f) => f.endsWith('.ts'));

t.test('every test file is in a folder of src/, and a test named for a module is beside it', (t) => {
  t.same(misplacedTests(filesUnder(TEST), srcModules), [], 'test/ mirrors src/');
  t.end();
});

t.test('the cross-cutting folders are folders of test/, and none of them is a folder of src/', (t) => {
  for (const folder of CROSS_CUTTING) {
    t.ok(existsSync(join(TEST, folder)), `test/${folder}/ exists`);
    t.notOk(existsSync(join(SRC, folder)), `src/${folder}/ does not exist: its tests would mirror it`);
  }
  t.end();
});

t.test('the check catches what it is for', (t) => {
  const src = ['flux/label-selector.ts', 'kube/kube-client.ts', 'runtime/commit-times.ts', 'forges/github/github-client.ts', 'main.ts'];
  const cases: Array<[string, string[]]> = [
    ['flux/label-selector.test.ts', []],
    ['kube/kube-client.test.ts', []],
    ['kube/routing-reads.test.ts', []],
    ['kube/fake-reader.ts', []],
    ['forges/github/github-client.test.ts', []],
    ['main.test.ts', []],
    ['e2e/anything.test.ts', []],
    ['harness/github-sim/server.ts', []],
    [
      'kube/label-selector.test.ts',
      [
        'test/kube/label-selector.test.ts is named for src/flux/label-selector.ts: move it to test/flux/label-selector.test.ts (or name it for what it tests)',
      ],
    ],
    [
      'forges/github/commit-times.test.ts',
      [
        'test/forges/github/commit-times.test.ts is named for src/runtime/commit-times.ts: move it to test/runtime/commit-times.test.ts (or name it for what it tests)',
      ],
    ],
    [
      'config/schema.test.ts',
      ['test/config/schema.test.ts: src/config/ does not exist (tests mirror src/; a cross-cutting folder is listed in CROSS_CUTTING)'],
    ],
    [
      'forges/gitlab/rig.ts',
      [
        'test/forges/gitlab/rig.ts: src/forges/gitlab/ does not exist (tests mirror src/; a cross-cutting folder is listed in CROSS_CUTTING)',
      ],
    ],
  ];
  for (const [file, problems] of cases) t.same(misplacedTests([file], src), problems, file);
  t.end();
});
