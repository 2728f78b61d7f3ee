/**
 * `npm run docs:config`: rewrites docs/configuration.md's settings table from the declarations in
 * src/config/settings.ts (test/config/config-table.test.ts fails while the two differ).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigTable } from '../src/config/config-table.js';

// Run from dist/scripts, like the other scripts.
const PAGE = new URL('../../docs/configuration.md', import.meta.url);
const before = readFileSync(PAGE, 'utf8');
const after = withConfigTable(before);
if (after !== before) writeFileSync(PAGE, after);
process.stdout.write(`docs/configuration.md: settings table ${after === before ? 'already up to date' : 'rewritten'}\n`);
