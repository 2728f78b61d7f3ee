import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { REPO_ROOT } from '../fixtures/locate.js';

/** One Forgejo status as the demo prints it: state, context and link, the description on the next line. */
const status = (state: string, link: string, description: string) =>
  `  ${state.padEnd(8)} deploy/preview-pr-42 \\(sim-cluster\\)  ${link}\\n {11}"${description}`;
const ROUTE = 'https://pr-42\\.preview\\.example\\.com/';

t.test("npm run demo: the README's first command shows a real rollout end to end", async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, [join(REPO_ROOT, 'dist', 'scripts', 'demo.js')], { timeout: 240_000 });
  t.match(stdout, /#\d+\s+staging\s+[0-9a-f]{7}\s+in_progress → success → inactive\n/);
  t.match(stdout, /#\d+\s+staging\s+[0-9a-f]{7}\s+in_progress → success\n/);
  t.match(stdout, /GitHub writes: \d+ .*; every request valid against GitHub's API description\n/);

  t.match(
    stdout,
    new RegExp(
      [
        status('pending', `(?:${ROUTE}|no link)`, 'shop:[0-9a-f]{7} on sim-cluster · Progressing'),
        status('success', ROUTE, 'shop:[0-9a-f]{7} on sim-cluster · ReconciliationSucceeded'),
        status('success', 'no link', 'Deployment gone: Flux Kustomization flux-system/preview-pr-42 was deleted'),
      ].join('.*\\n'),
    ),
    'Forgejo: pending, success linking the route from the Ingress, then gone without a link, in that order',
  );
  t.match(stdout, /Forgejo writes: 3; every request valid against Forgejo's API description\n/);
  t.match(
    stdout,
    /forgejo acme\/shop preview-pr-42 [0-9a-f]{7} "deploy\/preview-pr-42 \(sim-cluster\)" gone\n/,
    '/state: the ended context',
  );
  t.match(stdout, /github {2}acme\/web staging [0-9a-f]{7} #\d+ success\n/, '/state: the current GitHub deployment');
  t.match(stdout, /#1 {2}review\/mr-7 {2}[0-9a-f]{7} {2}ref feature\/login {2}success\n/, 'GitLab: the deployment on the branch');
  t.match(stdout, /environment review\/mr-7 {2}development {2}https:\/\/mr-7\.review\.example\.com\/ {2}stopped\n/);
  t.match(stdout, /GitLab writes: 4; every request valid against GitLab's API description\n/, 'create, environment PUT, success, stop');
  t.match(stdout, /gitlab {2}platform\/shop review\/mr-7 [0-9a-f]{7} #\d+ gone\n/, '/state: the retired GitLab row');
  t.notMatch(stdout, /schema violation|!\d/, 'no simulator jargon, no merge request sigil on a deployment');
  t.match(stdout, /^▶ Demo succeeded/m, 'the success line .ci/run looks for in a lone clone');
});
