/**
 * An unsupported Node.js is refused with one line before any native module loads: the table of versions, and the
 * built entry run on the machine's own Node (20 here and in CI, where better-sqlite3 13 would crash with a
 * segmentation fault) for each way a user starts it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { nodeRefusal, OLDEST_NODE_MAJOR } from '../../src/common/node-support.js';
import { REPO_ROOT } from '../fixtures/locate.js';

t.test('which versions are refused', (t) => {
  const table: Array<[string, boolean]> = [
    ['20.20.2', true],
    ['v20.20.2', true],
    ['22.12.0', true],
    ['23.11.1', true],
    ['24.0.0', false],
    ['24.21.0', false],
    ['v25.1.0', false],
    ['30.0.0', false],
    ['garbage', true],
    ['', true],
  ];
  for (const [version, refused] of table) t.equal(nodeRefusal(version) !== undefined, refused, version);
  t.equal(
    nodeRefusal('20.20.2'),
    `github-deployment-bridge: Node.js 20.20.2 is not supported, it needs Node.js ${OLDEST_NODE_MAJOR} or newer; ` +
      'in a checkout run it on the Node.js that npm ci installs: node_modules/.bin/node dist/src/main.js …',
  );
  t.end();
});

/** The machine's own Node (not the project's): /usr/bin/node, as installed by the distribution. */
const SYSTEM_NODE = '/usr/bin/node';

t.test("the built entry on the machine's older Node: one line, status 1, before better-sqlite3 loads", (t) => {
  t.ok(existsSync(SYSTEM_NODE), `${SYSTEM_NODE} exists (the machine's Node)`);
  const version = spawnSync(SYSTEM_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim();
  t.ok(Number(version.split('.')[0]) < OLDEST_NODE_MAJOR, `the machine's Node (${version}) is older than ${OLDEST_NODE_MAJOR}`);
  const entry = join(REPO_ROOT, 'dist', 'src', 'main.js');
  for (const args of [['explain', 'Kustomization/flux-system/apps'], ['dora'], [], ['--version']]) {
    const run = spawnSync(SYSTEM_NODE, [entry, ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', CLUSTER_NAME: 'c', WEBHOOK_TOKEN: 'x'.repeat(40), GITHUB_TOKEN: 'ghp_x' },
      timeout: 30_000,
    });
    const what = ['main.js', ...args].join(' ');
    t.equal(run.signal, null, `${what}: no crash (no SIGSEGV)`);
    t.equal(run.status, 1, `${what}: exit status 1`);
    t.equal(run.stdout, '', `${what}: nothing on stdout`);
    t.equal(run.stderr, `${nodeRefusal(version)}\n`, `${what}: the one line`);
  }
  t.end();
});
