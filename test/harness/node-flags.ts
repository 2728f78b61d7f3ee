/**
 * The node flags the container starts the bridge with, read from the Dockerfile's ENTRYPOINT
 * (`["node", <flags>…, "dist/src/main.js"]`): the one place they are set. bridge-process.ts starts every
 * test and benchmark bridge with them, so what the benchmarks measure is what ships.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../fixtures/locate.js';

/** The flags between `node` and the script in a Dockerfile's exec-form ENTRYPOINT; throws when it has another shape. */
export function entrypointNodeFlags(dockerfile: string): string[] {
  const line = /^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1];
  const argv: unknown = line === undefined ? undefined : JSON.parse(line);
  const shape = Array.isArray(argv) && argv.length >= 2 && argv[0] === 'node' && argv.at(-1) === 'dist/src/main.js';
  if (!shape || !argv.every((a): a is string => typeof a === 'string'))
    throw new Error(`the Dockerfile's ENTRYPOINT is not ["node", <flags>…, "dist/src/main.js"]: ${line ?? 'none'}`);
  const flags = argv.slice(1, -1);
  const odd = flags.find((f) => !f.startsWith('--'));
  if (odd !== undefined) throw new Error(`the Dockerfile's ENTRYPOINT has '${odd}' where only --flags belong`);
  return flags;
}

/** The repository Dockerfile's node flags. */
export const PRODUCTION_NODE_FLAGS: readonly string[] = entrypointNodeFlags(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
