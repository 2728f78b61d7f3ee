import { DEFAULT_DATABASE_PATH } from '../config/settings.js';
import { doraFigures } from '../features/dora/dora.js';
import { matchesPattern } from '../metadata/patterns.js';
import { SCHEMA_VERSION } from '../features/schema.js';
import { openDatabaseReadOnly } from '../store/database.js';
import { DoraStore } from '../features/dora/dora-store.js';
import { doraTable } from './dora-table.js';

const USAGE = 'usage: github-deployment-bridge dora <owner/repo or group/subgroup/project> [--days N] [--environments pattern,...]';

/** `dora`'s exit statuses. */
export const DORA_EXIT = { printed: 0, failed: 1, usage: 2 } as const;

const HELP = `${USAGE}

Prints the four DORA keys of a repository's counted environments (production ones; --environments adds
others by pattern, \`*\` the only special character; previews never) from the bridge's database
(DATABASE_PATH, default ${DEFAULT_DATABASE_PATH}), read only, beside a running bridge. A figure that
cannot be known prints as —, with how many it is made of in parentheses (— (0): nothing to measure yet).
Under a day of history a rate is not computed: the count of deployments is printed instead.
--days: the window, 30 by default. docs/dora.md says what each figure is.

exit status: ${DORA_EXIT.printed} printed, ${DORA_EXIT.failed} the database could not be read, ${DORA_EXIT.usage} usage error
`;

const DAY_MS = 86_400_000;
const ROLLBACK_WINDOW_MS = DAY_MS;

export interface DoraArgs {
  repository: string;
  days: number;
  environments: string[];
}

/** Parses `owner/repo` (or a GitLab `group/subgroup/project`) `[--days N] [--environments a,b]`; undefined on anything else. */
export function parseDoraArgs(args: readonly string[]): DoraArgs | undefined {
  const out: DoraArgs = { repository: '', days: 30, environments: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--days') {
      const days = Number(args[++i]);
      if (!Number.isInteger(days) || days < 1 || days > 3650) return undefined;
      out.days = days;
    } else if (a === '--environments') {
      const list = (args[++i] ?? '').split(',').map((p) => p.trim());
      if (list.some((p) => p === '')) return undefined;
      out.environments = list;
    } else if (/^[^/\s-][^/\s]*(\/[^/\s]+)+$/.test(a) && out.repository === '') out.repository = a;
    else return undefined;
  }
  return out.repository ? out : undefined;
}

/** `dora`: prints the table for one repository from the database; writes nothing. */
export function doraMain(
  args: string[],
  env: NodeJS.ProcessEnv,
  now = Date.now(),
  out: (text: string) => void = (s) => process.stdout.write(s),
  err: (text: string) => void = (s) => process.stderr.write(s),
): number {
  if (args.length === 1 && ['--help', '-h', 'help'].includes(args[0] ?? '')) {
    out(HELP);
    return DORA_EXIT.printed;
  }
  const parsed = parseDoraArgs(args);
  if (!parsed) {
    err(`${USAGE}\n`);
    return DORA_EXIT.usage;
  }
  const path = env.DATABASE_PATH?.trim() || DEFAULT_DATABASE_PATH;
  let db;
  try {
    db = openDatabaseReadOnly(path, SCHEMA_VERSION);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    // SQLite's own words ("unable to open database file") do not say which file: name it, and where it comes from.
    const where = message.includes(path)
      ? ''
      : `cannot open the database ${path} (DATABASE_PATH${env.DATABASE_PATH?.trim() ? '' : ' unset: the default'}): `;
    err(`github-deployment-bridge dora: ${where}${message}\n`);
    return DORA_EXIT.failed;
  }
  try {
    const store = new DoraStore(db);
    const windowMs = parsed.days * DAY_MS;
    const since = store.since();
    const figures = doraFigures(store.facts({ repository: parsed.repository, from: now - windowMs - ROLLBACK_WINDOW_MS }), {
      now,
      windowMs,
      rollbackWindowMs: ROLLBACK_WINDOW_MS,
      // No outcome recorded yet: nothing is known, not "no deployments".
      since: since ?? now,
      include: (e) => parsed.environments.some((p) => matchesPattern(p, e)),
    });
    const history = { start: Math.max(now - windowMs, since ?? now), now };
    out(`${doraTable(parsed.repository, parsed.days, figures, history).join('\n')}\n`);
    return DORA_EXIT.printed;
  } finally {
    db.close();
  }
}
