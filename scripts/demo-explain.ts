/** The line the serving demo prints for pointing `explain` at its world: the settings a report depends on. */
import { join, relative } from 'node:path';
import { REPORTING_SETTINGS } from '../src/config/settings.js';
import { MAIN_JS } from '../test/harness/bridge-process.js';
import { REPO_ROOT } from '../test/fixtures/locate.js';

/** The project's Node.js (package.json's `node` devDependency, which `npm ci` installs), not whatever `node` is on PATH. */
const PROJECT_NODE = join(REPO_ROOT, 'node_modules', '.bin', 'node');

/** The names `explain` reads (docs/configuration.md: "`explain` reads only …"). */
const REPORTING_NAMES: ReadonlySet<string> = new Set(Object.values(REPORTING_SETTINGS).flatMap((s) => s.rows.flatMap((r) => r.names)));

/** A word the shell reads back as `text`. */
const shellWord = (text: string) => (/^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`);

/**
 * `explain` for `object` with the bridge's settings that shape a report, runnable from `cwd`. GitHub counts
 * as configured for `explain` when its variables are set, so the (simulator's) token is passed along too.
 */
export function explainCommand(bridgeEnv: Record<string, string>, object: string, cwd = process.cwd()): string {
  const settings = Object.entries(bridgeEnv).filter(([name]) => REPORTING_NAMES.has(name) || name === 'GITHUB_TOKEN');
  return [
    ...settings.map(([name, value]) => `${name}=${shellWord(value)}`),
    shellWord(relative(cwd, PROJECT_NODE)),
    shellWord(relative(cwd, MAIN_JS)),
    'explain',
    object,
  ].join(' ');
}

/** `dora` for `repository` over the bridge's database, runnable from `cwd` on the project's Node.js. */
export function doraCommand(bridgeEnv: Record<string, string>, repository: string, options: string[], cwd = process.cwd()): string {
  return [
    `DATABASE_PATH=${shellWord(bridgeEnv.DATABASE_PATH ?? '')}`,
    shellWord(relative(cwd, PROJECT_NODE)),
    shellWord(relative(cwd, MAIN_JS)),
    'dora',
    repository,
    ...options,
  ].join(' ');
}
