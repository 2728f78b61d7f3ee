/**
 * GitHub's tables: the App installation per repository owner (installation-store.ts), and its refusals (which version 8,
 * store/migrations.ts, made every forge's `forge_refusals`). Versions as shipped.
 */
import type { Migration } from '../../store/migrations.js';

export const GITHUB_MIGRATIONS: readonly Migration[] = [
  // GitHub: App installation per repository owner (with its look-up time), and refusals not to repeat before retry_at.
  {
    version: 3,
    sql: `CREATE TABLE github_installations (
     owner TEXT PRIMARY KEY, installation_id INTEGER NOT NULL, resolved_at INTEGER NOT NULL
   ) WITHOUT ROWID;
   CREATE TABLE github_refusals (
     key TEXT PRIMARY KEY, code TEXT NOT NULL, reason TEXT NOT NULL, status INTEGER,
     since INTEGER NOT NULL, retry_at INTEGER NOT NULL
   ) WITHOUT ROWID;`,
  },
];
