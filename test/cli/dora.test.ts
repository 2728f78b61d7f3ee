import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { DORA_EXIT, doraMain, parseDoraArgs } from '../../src/cli/dora.js';
import { doraTable, humanDuration, LEGEND, MIN_RATE_HISTORY_MS, UNKNOWN } from '../../src/cli/dora-table.js';
import type { Identity } from '../../src/lifecycle/identity.js';
import { DeploymentStore } from '../../src/store/deployment-store.js';
import { CommitTimeStore } from '../../src/features/dora/commit-time-store.js';
import { record, shopDeployment } from '../harness/recorded-deployments.js';
import { MAIN_JS } from '../harness/bridge-process.js';
import { keepOutcomes } from '../../src/features/dora/dora-store.js';
import { openDatabase } from '../harness/database.js';

const H = 3_600_000;
const D = 24 * H;
const NOW = 200 * D;
const id = (c: string, environment = 'production'): Identity => shopDeployment(c, { environment });

/** A database with: production a (failed, then b succeeded 2h later), staging c; closed, so the command reads it alone. */
function database(t: Test, now = NOW): string {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-dora-cli-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bridge.db');
  const db = openDatabase(path);
  const s = new DeploymentStore(keepOutcomes(db));
  const run = (who: Identity, start: number, state: 'success' | 'failure', at: number) => record(s, who, start, [state, at]);
  run(id('a'), now - 5 * D, 'failure', now - 5 * D + H);
  run(id('b'), now - 5 * D + 2 * H, 'success', now - 5 * D + 3 * H);
  run(id('c', 'staging'), now - 4 * D, 'success', now - 4 * D + H);
  db.close();
  return path;
}

function capture(args: string[], env: NodeJS.ProcessEnv) {
  const out: string[] = [];
  const err: string[] = [];
  const code = doraMain(
    args,
    env,
    NOW,
    (s) => out.push(s),
    (s) => err.push(s),
  );
  return { code, out: out.join(''), err: err.join('') };
}

t.test('parseDoraArgs', (t) => {
  const rows: Array<[string[], ReturnType<typeof parseDoraArgs>]> = [
    [['acme/shop'], { repository: 'acme/shop', days: 30, environments: [] }],
    [['acme/shop', '--days', '7'], { repository: 'acme/shop', days: 7, environments: [] }],
    [['--environments', 'stag*,qa', 'acme/shop'], { repository: 'acme/shop', days: 30, environments: ['stag*', 'qa'] }],
    [[], undefined],
    [['acme'], undefined],
    [['platform/team/app'], { repository: 'platform/team/app', days: 30, environments: [] }],
    [['acme/shop/'], undefined],
    [['/acme/shop'], undefined],
    [['acme//shop'], undefined],
    [['acme/shop', 'acme/api'], undefined],
    [['acme/shop', '--days', '0'], undefined],
    [['acme/shop', '--days', '1.5'], undefined],
    [['acme/shop', '--days'], undefined],
    [['acme/shop', '--environments', ''], undefined],
    [['acme/shop', '--frobnicate'], undefined],
  ];
  for (const [args, want] of rows) t.same(parseDoraArgs(args), want, args.join(' ') || '(none)');
  t.end();
});

t.test('durations and the table: absent figures print as —, never 0', (t) => {
  t.equal(humanDuration(undefined), UNKNOWN);
  t.equal(humanDuration(45 * 60_000), '45m');
  t.equal(humanDuration(3.5 * H), '3.5h');
  t.equal(humanDuration(2 * D), '2.0d');
  const lines = doraTable('acme/shop', 30, [
    {
      forge: 'github',
      repository: 'acme/shop',
      environment: 'prod\nx',
      leadTimesMs: [],
      skewClamped: 0,
      deployments: 0,
      failedChanges: 0,
      restoreTimesMs: [],
      unrestored: 0,
    },
  ]);
  t.equal(lines.length, 4);
  t.equal(lines[3], LEGEND, 'what (n) and — (0) mean');
  t.match(lines[2], /^github\s+prod x\s+—\s+—\s+— \(0\)\s+— \(0\/0\)\s+— \(0\)$/, 'one line, every figure unknown');
  t.same(doraTable('acme/shop', 7, []), [
    'acme/shop: the last 7 days',
    'no deployments recorded in a counted environment (production, or --environments)',
  ]);
  t.end();
});

t.test('from a real database: production by default, staging when asked', (t) => {
  const env = { DATABASE_PATH: database(t) };
  const prod = capture(['acme/shop'], env);
  t.equal(prod.code, DORA_EXIT.printed, prod.err);
  const lines = prod.out.trimEnd().split('\n');
  t.equal(lines[0], 'acme/shop: the last 30 days');
  t.match(lines[1], /^forge\s+environment\s+per day/);
  t.equal(lines.length, 4, 'production only, and the legend');
  t.match(
    lines[2],
    /^github\s+production\s+0\.20\s+1\.4\s+— \(0\)\s+50% \(1\/2\)\s+2\.0h \(1\)$/,
    'one success over the 5 days the history covers; one of two failed; restored in 2h; no commit times: no lead time',
  );
  const both = capture(['ACME/SHOP', '--environments', 'stag*'], env);
  t.equal(both.out.trimEnd().split('\n').length, 5, 'and staging');
  t.match(capture(['acme/other'], env).out, /no deployments recorded/);
  t.end();
});

t.test('with the commit time read from the forge: the lead time shows', (t) => {
  const path = database(t);
  const db = openDatabase(path);
  new CommitTimeStore(db).record(
    { forge: 'github', owner: 'acme', repo: 'shop', sha: 'b'.repeat(40) },
    NOW - 5 * D + H,
    NOW - 5 * D + 4 * H,
  );
  db.close();
  const prod = capture(['acme/shop'], { DATABASE_PATH: path });
  t.match(
    prod.out.trimEnd().split('\n')[2],
    /^github\s+production\s+0\.20\s+1\.4\s+2\.0h \(1\)\s+50% \(1\/2\)\s+2\.0h \(1\)$/,
    'b: committed 2h before its rollout was complete',
  );
  t.end();
});

t.test('errors: usage, a missing database (not created), help', (t) => {
  const usage = capture(['nope'], {});
  t.equal(usage.code, DORA_EXIT.usage);
  t.match(usage.err, /^usage: github-deployment-bridge dora <owner\/repo or group\/subgroup\/project>/);
  const dir = mkdtempSync(join(tmpdir(), 'gdb-dora-none-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const missing = capture(['acme/shop'], { DATABASE_PATH: join(dir, 'none.db') });
  t.equal(missing.code, DORA_EXIT.failed);
  t.equal(
    missing.err,
    `github-deployment-bridge dora: cannot open the database ${join(dir, 'none.db')} (DATABASE_PATH): unable to open database file\n`,
    'names the file it tried',
  );
  // The default path is relative: asked from an empty folder, whatever a bridge run left in the checkout's ./data.
  const here = process.cwd();
  process.chdir(dir);
  try {
    t.match(capture(['acme/shop'], {}).err, /cannot open the database \S+ \(DATABASE_PATH unset: the default\)/);
  } finally {
    process.chdir(here);
  }
  t.equal(capture(['--help'], {}).code, DORA_EXIT.printed);
  t.end();
});

t.test('the built command', async (t) => {
  const path = database(t, Date.now());
  const { stdout } = await promisify(execFile)(process.execPath, [MAIN_JS, 'dora', 'acme/shop', '--days', '365'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_PATH: path },
  });
  t.match(stdout, /^acme\/shop: the last 365 days\n/);
  t.match(stdout, /\ngithub\s+production\s+\S+\s+\S+\s+— \(0\)\s+50% \(1\/2\)\s+2\.0h \(1\)\n/);
});

t.test('a short history: the count and since when, no rate', (t) => {
  const figure = {
    forge: 'gitlab',
    repository: 'platform/team/app',
    environment: 'production',
    perDay: 3530.78,
    perWeek: 24715.5,
    leadTimesMs: [],
    skewClamped: 0,
    deployments: 3,
    failedChanges: 0,
    changeFailureRate: 0,
    restoreTimesMs: [],
    unrestored: 0,
  };
  const start = Date.parse('2026-12-06T03:00:00Z');
  const short = doraTable('platform/team/app', 30, [figure], { start, now: start + MIN_RATE_HISTORY_MS - 1 });
  t.match(short[2], /^gitlab\s+production\s+too short\s+—\s+/);
  t.notMatch(short.join('\n'), '3530');
  t.equal(short[3], 'production: 3 deployments since 2026-12-06 03:00 UTC, too short for a rate (a rate needs a day of history)');
  const long = doraTable('platform/team/app', 30, [figure], { start, now: start + MIN_RATE_HISTORY_MS });
  t.match(long[2], /^gitlab\s+production\s+3530\.78\s+24715\.5\s+/, 'a day of history: the rate');
  t.equal(long.length, 4);
  t.end();
});

t.test('a nested GitLab project from a real database', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-dora-nested-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'bridge.db');
  const db = openDatabase(path);
  const s = new DeploymentStore(keepOutcomes(db));
  const who: Identity = { ...shopDeployment('d', { environment: 'production' }), forge: 'gitlab', owner: 'platform/team', repo: 'app' };
  record(s, who, NOW - 3 * D, ['success', NOW - 3 * D + H]);
  db.close();
  const out = capture(['platform/team/app'], { DATABASE_PATH: path });
  t.equal(out.code, DORA_EXIT.printed, out.err);
  t.match(out.out, /^platform\/team\/app: the last 30 days\n/);
  t.match(out.out, /\ngitlab\s+production\s+0\.34\s+2\.4\s+/, 'one deployment over the (almost) 3 days of history since the first record');
  t.end();
});
