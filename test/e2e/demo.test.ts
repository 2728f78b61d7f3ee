import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { REPO_ROOT } from '../fixtures/locate.js';

t.test("npm run demo: the README's first command shows a real rollout end to end", async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'dist', 'scripts', 'demo.js')], { timeout: 240_000 });
  t.match(stdout, /#\d+\s+staging\s+[0-9a-f]{7}\s+in_progress → success → inactive \(by GitHub\)/);
  t.match(stdout, /#\d+\s+staging\s+[0-9a-f]{7}\s+in_progress → success\n/);
  t.match(stdout, /schema violations: 0/);
  t.match(stdout, /^▶ Demo succeeded/m, 'the success line .ci/run looks for in a lone clone');
});
