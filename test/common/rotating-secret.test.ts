import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { loadConfig } from '../../src/config/load-config.js';
import { secretValue } from '../../src/common/rotating-secret.js';
import { startRig } from '../forges/github/rig.js';
import { configProblems } from '../config/config-problems.js';

/** A STATE_TOKEN long enough to be accepted. */
const STATE = 'a-state-token-of-at-least-32-bytes';
const BASE = { WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes', CLUSTER_NAME: 'prod-eu-1' };

function secrets(t: Test): (name: string, content: string) => string {
  const dir = mkdtempSync(join(tmpdir(), 'rotating-secret-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return (name, content) => {
    writeFileSync(join(dir, name), content);
    return join(dir, name);
  };
}

const problemsOf = configProblems;

t.test('GITHUB_TOKEN_FILE: read again before each use, so a rotated file is picked up without a restart', async (t) => {
  const write = secrets(t);
  const path = write('github', 'ghp_first\n');
  const auth = loadConfig({ ...BASE, GITHUB_TOKEN_FILE: path }).githubAuth;
  if (auth?.kind !== 'token' || typeof auth.token === 'string') throw new Error(`not a token file: ${JSON.stringify(auth)}`);
  t.equal(await auth.token(), 'ghp_first', 'trimmed');
  write('github', 'ghp_second');
  t.equal(await auth.token(), 'ghp_second', 'the rotated token');
  t.same(loadConfig({ ...BASE, GITHUB_TOKEN: 'ghp_x' }).githubAuth, { kind: 'token', token: 'ghp_x' }, 'inline as before');
});

t.test('GITHUB_TOKEN_FILE and STATE_TOKEN_FILE: never with their inline form; an empty or missing file is a problem', (t) => {
  const write = secrets(t);
  const path = write('token', STATE);
  const empty = write('empty', ' \n');
  t.same(problemsOf({ ...BASE, GITHUB_TOKEN: 'a', GITHUB_TOKEN_FILE: path }), ['set only one of GITHUB_TOKEN and GITHUB_TOKEN_FILE']);
  t.match(problemsOf({ ...BASE, GITHUB_TOKEN_FILE: empty }), [/^GITHUB_TOKEN_FILE=".*empty" is empty/]);
  t.match(problemsOf({ ...BASE, GITHUB_TOKEN_FILE: join(path, 'nope') }), [/^GITHUB_TOKEN_FILE=".*nope" cannot be read \(ENOTDIR\)/]);
  t.match(problemsOf({ ...BASE, GITHUB_TOKEN_FILE: path, GITHUB_APP_ID: '1' }), [/^set either GITHUB_TOKEN or a GitHub App/]);
  const github = { ...BASE, GITHUB_TOKEN: 'ghp_x' };
  t.same(problemsOf({ ...github, STATE_TOKEN: STATE, STATE_TOKEN_FILE: path }), ['set only one of STATE_TOKEN and STATE_TOKEN_FILE']);
  t.match(problemsOf({ ...github, STATE_TOKEN_FILE: empty }), [/^STATE_TOKEN_FILE=".*empty" is empty/]);
  t.same(loadConfig({ ...github, STATE_TOKEN_FILE: path }).stateToken, { kind: 'file', path });
  t.same(loadConfig({ ...github, STATE_TOKEN: STATE }).stateToken, { kind: 'inline', value: STATE });
  t.equal(loadConfig(github).stateToken, undefined);
  for (const p of [problemsOf({ ...BASE, GITHUB_TOKEN: 'secret-value', GITHUB_TOKEN_FILE: path })])
    t.notMatch(p.join('\n'), /secret-value/, 'a problem never echoes the token');
  t.end();
});

t.test('GitHub requests carry the token the file holds at the time: rotation reaches the wire', async (t) => {
  const write = secrets(t);
  const path = write('github', 'ghs_old\n');
  const rig = await startRig(t, {
    sim: { tokens: ['ghs_old', 'ghs_new'] },
    auth: { kind: 'token', token: secretValue({ kind: 'file', path }) },
  });
  const side = rig.side;
  await side.monitor.checkNow();
  write('github', 'ghs_new\n');
  await side.monitor.checkNow();
  t.same(
    rig.sim.requests.map((r) => r.token),
    ['ghs_old', 'ghs_new'],
  );
  t.equal(side.health.credentialState, 'ok');
});
