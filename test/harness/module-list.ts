/**
 * Preloaded into a bridge process (`--import`, see transport.test.ts): when it exits it writes the built-in
 * modules it loaded (`process.moduleLoadList`, one per line) to MODULE_LIST_FILE, so a test can say what a
 * run never loaded.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.MODULE_LIST_FILE;
const loaded = (process as unknown as { moduleLoadList: string[] }).moduleLoadList;
if (file) process.once('exit', () => writeFileSync(file, loaded.join('\n')));
