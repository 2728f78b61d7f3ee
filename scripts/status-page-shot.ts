/**
 * docs/status-page.png, made again: the demo serving (`--serve`), its status page in headless Chromium
 * (Debian's `chromium`), a screenshot of it. `npm run docs:screenshot`.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const ROOT = resolve(import.meta.dirname, '../..');
const OUT = join(ROOT, 'docs/status-page.png');

const demo = spawn(process.execPath, [join(ROOT, 'dist/scripts/demo.js'), '--serve'], { stdio: ['ignore', 'pipe', 'inherit'] });
const url = await new Promise<string>((done, fail) => {
  let out = '';
  demo.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    const found = /▶ Still running[\s\S]*curl (http:\/\/127\.0\.0\.1:\d+)\/state/.exec(out);
    if (found?.[1]) done(found[1]);
  });
  demo.once('exit', () => fail(new Error(`the demo exited before serving:\n${out}`)));
});
const profile = mkdtempSync(join(tmpdir(), 'chromium-'));
try {
  const flags = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--hide-scrollbars'];
  flags.push(`--user-data-dir=${profile}`, '--window-size=1400,1300', `--screenshot=${OUT}`, url);
  await promisify(execFile)('/usr/bin/chromium', flags, { timeout: 60_000 });
  console.log(`wrote ${OUT} from ${url}`);
} finally {
  rmSync(profile, { recursive: true, force: true });
  demo.kill('SIGTERM');
}
