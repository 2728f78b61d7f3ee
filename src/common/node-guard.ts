/**
 * Imported first by main.ts, for its side effect: on an unsupported Node.js it prints one line and exits with
 * status 1 before any other module (better-sqlite3's native binding above all) is evaluated. ES modules evaluate
 * in import order, so nothing main.ts imports after this one runs; test/common/node-guard.test.ts runs the
 * built entry on the machine's older Node to prove it.
 */
import { nodeRefusal } from './node-support.js';

const refusal = nodeRefusal(process.versions.node);
if (refusal !== undefined) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}
