import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { REPO_ROOT } from '../fixtures/locate.js';

/** Far above what stopping takes (the registry's SIGTERM grace is 5 s): only a demo that never exits reaches it. */
const EXIT_BOUND_MS = 60_000;

/** The live (not zombie) processes whose parent chain leads to `root`, read from /proc. */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid …: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') parents.set(Number(entry), Number(ppid));
    } catch {
      /* exited meanwhile */
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent === pid) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(root);
  return found;
}

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
};

/** The page at `url` as Chromium renders it (`--dump-dom`), with a fresh profile and nothing but the page fetched. */
async function inChromium(url: string): Promise<string> {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
  try {
    const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'];
    flags.push('--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`, '--dump-dom', url);
    const { stdout } = await promisify(execFile)('/usr/bin/chromium', flags, { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

/** Polls until `pid` is gone; false after `ms`. */
async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

const DEMO = join(REPO_ROOT, 'dist', 'scripts', 'demo.js');
const cases = [
  { how: 'SIGTERM to the demo', argv: [process.execPath, DEMO, '--serve'] },
  // How `npm run demo -- --serve &` then `kill $!` goes: npm passes SIGTERM to `sh -c`, which dies alone.
  { how: 'SIGTERM to the shell that started it', argv: ['sh', '-c', `"${process.execPath}" "${DEMO}" --serve; :`] },
];

for (const c of cases) {
  t.test(`${c.how} stops a serving demo, its bridge and docker-registry, and removes its temp folders`, async (t) => {
    const temp = mkdtempSync(join(tmpdir(), 'demo-stop-'));
    const [command = '', ...args] = c.argv;
    const top = spawn(command, args, { env: { PATH: process.env.PATH ?? '', TMPDIR: temp }, stdio: ['ignore', 'pipe', 'pipe'] });
    let started: number[] = [];
    t.teardown(() => {
      // Whatever the outcome, nothing of this test outlives it.
      for (const pid of [top.pid ?? 0, ...started]) if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(temp, { recursive: true, force: true });
    });
    let out = '';
    top.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exit = new Promise<number | null>((r) => top.once('exit', r));
    await new Promise<void>((resolve, reject) => {
      top.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (/▶ Still running[\s\S]*explain Kustomization\/flux-system\/web\n/.test(out)) resolve();
      });
      void exit.then(() => reject(new Error(`the demo exited before serving:\n${out}`)));
    });
    started = descendants(top.pid ?? 0);
    // The executable's name, not comm: Node 24 names its main thread 'MainThread'.
    const names = started.map((pid) => basename(readlinkSync(`/proc/${pid}/exe`)));
    t.ok(names.includes('docker-registry'), `docker-registry is among the processes started (${names.join(', ')})`);
    t.ok(names.filter((n) => n === 'node').length >= (command === 'sh' ? 2 : 1), 'so are the demo and the bridge');
    t.not(readdirSync(temp).length, 0, 'the demo has temp folders while it runs');

    if (command !== 'sh') {
      // The line the demo prints for `explain`, run as printed: it reads the demo's world.
      const line = /^ {2}(.* explain Kustomization\/flux-system\/web)$/m.exec(out)?.[1] ?? '';
      const explained = await promisify(execFile)('sh', ['-c', line], { cwd: REPO_ROOT, env: { PATH: process.env.PATH ?? '' } });
      t.match(explained.stdout, /^Kustomization flux-system\/web: success/, `runs as printed: ${line}`);
      t.match(explained.stdout, /acme\/web@[0-9a-f]{12} environment staging/);
    }
    if (command !== 'sh') {
      // The status page of the serving demo, in a real browser (Debian's chromium, headless).
      const url = /curl (http:\/\/127\.0\.0\.1:\d+)\/state/.exec(out)?.[1] ?? '';
      const dom = await inChromium(url);
      t.match(dom, '<h3>GitHub · staging</h3>');
      t.match(dom, '<h3>Forgejo · preview-pr-42</h3>');
      t.match(dom, /<tr class="live"><td class="long"><a href="https:\/\/github\.com\/acme\/web\/deployments\/staging">acme\/web<\/a>/);
      t.match(
        dom,
        /<tr class="gone"><td class="long"><a href="http:\/\/127\.0\.0\.1:\d+\/acme\/shop\/commit\/[0-9a-f]{40}">acme\/shop<\/a>/,
      );
      t.match(dom, /<p id="queue">\d+ pending, \d+ active, \d+ running<\/p>/);
      t.match(dom, /<h3>GitHub · 80\/1m,500\/1h<\/h3>/, "GitHub's write budget, with its credential scope's backlog");
    }
    top.kill('SIGTERM');
    await exit;
    t.same(
      await Promise.all(started.map((pid) => gone(pid, EXIT_BOUND_MS))),
      started.map(() => true),
      'no process it started is left',
    );
    t.same(readdirSync(temp), [], 'its temp folders are gone');
    if (command !== 'sh') t.equal(top.exitCode, 0, 'the demo exits 0: stopping is how a serving demo ends');
  });
}
