/**
 * The lines the serving demo prints for `explain` and `dora` run as printed, from the folder it was started in,
 * on a machine whose `node` is older than the project's (the shell's PATH puts /usr/bin first): they name the
 * Node.js that `npm ci` installs, so nothing depends on which `node` a user has.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT } from '../fixtures/locate.js';

const DEMO = join(REPO_ROOT, 'dist', 'scripts', 'demo.js');

t.test("the serving demo's explain and dora lines run as printed, on the project's Node.js", async (t) => {
  const demo = spawn(process.execPath, [DEMO, '--serve'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => demo.once('exit', resolve));
  t.teardown(async () => {
    demo.kill('SIGTERM');
    await exited;
  });
  const out = await new Promise<string>((resolve, reject) => {
    let text = '';
    demo.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (/Its status page: /.test(text)) resolve(text);
    });
    demo.once('exit', () => reject(new Error(`the demo exited before serving:\n${text}`)));
  });
  const explain = /^ {2}(.* explain Kustomization\/flux-system\/web)$/m.exec(out)?.[1];
  const dora = /^ {2}(DATABASE_PATH=.* dora acme\/web --environments staging)$/m.exec(out)?.[1];
  t.ok(explain, 'the explain line');
  t.ok(dora, 'the dora line');
  t.match(explain, / node_modules\/\.bin\/node dist\/src\/main\.js explain /, "the project's Node.js, relative to the folder");
  // The machine's older Node first on PATH, as a user's shell has it: the printed line must not depend on it.
  const env = { PATH: `/usr/bin:${process.env.PATH ?? ''}`, HOME: process.env.HOME ?? '/tmp' };
  const run = (line: string) => spawnSync('sh', ['-c', line], { cwd: REPO_ROOT, env, encoding: 'utf8', timeout: 60_000 });
  const e = run(explain ?? 'false');
  t.equal(e.status, 0, `explain ran: ${e.stderr}`);
  t.match(e.stdout, /acme\/web/, 'and explained the workload');
  const d = run(dora ?? 'false');
  t.equal(d.status, 0, `dora ran: ${d.stderr}`);
  t.match(d.stdout, /^acme\/web: the last 30 days\n/);
  t.match(d.stdout, /\ngithub\s+staging\s+too short\s+—/, 'minutes of history: no rate');
  t.match(d.stdout, /\nstaging: \d+ deployments? since .*, too short for a rate/);
});
