/**
 * How the container starts the bridge, from the Dockerfile's runtime stage (dockerfile.ts), the one place it
 * is set: the node flags of its ENTRYPOINT (`["node", <flags>…, "dist/src/main.js"]`) and the glibc malloc
 * variables (`MALLOC_*`) of its ENV. bridge-process.ts starts every test and benchmark bridge with both, so
 * the benchmarks measure what ships.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../fixtures/locate.js';
import { runtimeStage } from './dockerfile.js';

/** The flags between `node` and the script of an exec-form ENTRYPOINT; throws when it has another shape. */
export function entrypointNodeFlags(argv: readonly string[]): string[] {
  if (argv.length < 2 || argv[0] !== 'node' || argv.at(-1) !== 'dist/src/main.js')
    throw new Error(`the Dockerfile's ENTRYPOINT is not ["node", <flags>…, "dist/src/main.js"]: ${JSON.stringify(argv)}`);
  const flags = argv.slice(1, -1);
  const odd = flags.find((f) => !f.startsWith('--'));
  if (odd !== undefined) throw new Error(`the Dockerfile's ENTRYPOINT has '${odd}' where only --flags belong`);
  return flags;
}

const STAGE = runtimeStage(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
/** The repository Dockerfile's node flags. */
export const PRODUCTION_NODE_FLAGS: readonly string[] = entrypointNodeFlags(STAGE.entrypoint);
/** The repository Dockerfile's malloc variables. */
export const PRODUCTION_MALLOC_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(STAGE.env).filter(([name]) => name.startsWith('MALLOC_')),
);
