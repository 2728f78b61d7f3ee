import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { parseCommand, usage } from '../../src/cli/usage.js';
import { REPO_ROOT } from '../fixtures/locate.js';
import { MAIN_JS } from '../harness/bridge-process.js';

const VERSION = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** Runs the built bridge with these arguments and no settings but `env`; its exit code and output. */
async function runWith(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [MAIN_JS, ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const run = (...args: string[]) => runWith({}, ...args);

t.test('parseCommand', (t) => {
  const cases: Array<[string[], ReturnType<typeof parseCommand>]> = [
    [[], { kind: 'serve' }],
    [['serve'], { kind: 'serve' }],
    [['serve', 'now'], { kind: 'unknown', arg: 'now' }],
    [['explain', 'Kustomization/a/b'], { kind: 'explain', args: ['Kustomization/a/b'] }],
    [['explain'], { kind: 'explain', args: [] }],
    [['dora', 'acme/shop'], { kind: 'dora', args: ['acme/shop'] }],
    [['--help'], { kind: 'help' }],
    [['-h'], { kind: 'help' }],
    [['help'], { kind: 'help' }],
    [['--version'], { kind: 'version' }],
    [['-v'], { kind: 'version' }],
    [['version'], { kind: 'version' }],
    [['--port=1'], { kind: 'unknown', arg: '--port=1' }],
  ];
  for (const [args, expected] of cases) t.same(parseCommand(args), expected, args.join(' ') || '(none)');
  t.end();
});

t.test('--help: usage on stdout, exit 0, without any setting', async (t) => {
  const { code, stdout, stderr } = await run('--help');
  t.equal(code, 0);
  t.equal(stdout, usage(VERSION));
  t.equal(stderr, '');
  for (const word of ['serve', 'explain <Kustomization|HelmRelease>/<namespace>/<name>', '--version', 'docs/configuration.md'])
    t.match(stdout, word);
});

t.test('--version: the package version alone, exit 0', async (t) => {
  t.same(await run('--version'), { code: 0, stdout: `${VERSION}\n`, stderr: '' });
  t.same(await run('-v'), { code: 0, stdout: `${VERSION}\n`, stderr: '' });
});

t.test('an unknown argument: named, with the usage, exit 2; nothing started', async (t) => {
  const { code, stdout, stderr } = await run('--port=9000');
  t.equal(code, 2);
  t.equal(stdout, '');
  t.match(stderr, /^github-deployment-bridge: unknown command or argument '--port=9000'\n/);
  t.match(stderr, usage(VERSION));
});

t.test('serve is the default: without settings it names what is missing, exit 2', async (t) => {
  for (const args of [[], ['serve']]) {
    const { code, stderr } = await run(...args);
    t.equal(code, 2, args.join(' ') || '(no arguments)');
    t.match(stderr, 'WEBHOOK_TOKEN');
  }
});

t.test('explain --help: its usage and exit statuses on stdout, exit 0, without any setting', async (t) => {
  for (const flag of ['--help', '-h', 'help']) {
    const { code, stdout, stderr } = await run('explain', flag);
    t.equal(code, 0, flag);
    t.match(stdout, /^usage: github-deployment-bridge explain <Kustomization\|HelmRelease>\/<namespace>\/<name>/);
    t.match(
      stdout,
      /exit status: 0 explained, 1 the cluster or a registry could not be read, 2 usage error or\ninvalid settings, 3 no such Flux object/,
    );
    t.equal(stderr, '');
  }
});

t.test('explain with invalid settings: every problem named, exit 2 as for the server', async (t) => {
  const { code, stdout, stderr } = await runWith({ LOG_LEVEL: 'loud', REGISTRY_PLATFORM: 'amiga' }, 'explain', 'ks/flux-system/apps');
  t.equal(code, 2);
  t.equal(stdout, '');
  t.match(stderr, /^github-deployment-bridge explain: /);
  t.match(stderr, 'LOG_LEVEL="loud"');
  t.match(stderr, 'REGISTRY_PLATFORM="amiga"');
});
