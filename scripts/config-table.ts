/**
 * `npm run docs:config`: rewrites README.md's configuration table from the declarations in
 * src/config/settings.ts (test/config/config-table.test.ts fails while the two differ).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { withConfigTable } from '../src/config/config-table.js';

// Run from dist/scripts, like the other scripts.
const README = new URL('../../README.md', import.meta.url);
const before = readFileSync(README, 'utf8');
const after = withConfigTable(before);
if (after !== before) writeFileSync(README, after);
process.stdout.write(`README.md: configuration table ${after === before ? 'already up to date' : 'rewritten'}\n`);
