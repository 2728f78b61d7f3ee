/**
 * How the container starts the bridge, read from the Dockerfile, the one place it is set: the node flags of
 * its ENTRYPOINT (`["node", <flags>…, "dist/src/main.js"]`) and the glibc malloc variables (`MALLOC_*`) of
 * its ENV. bridge-process.ts starts every test and benchmark bridge with both, so the benchmarks measure what ships.
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

/** The `MALLOC_*` variables a Dockerfile's ENV sets (one `NAME=value` per line, as its ENV block is written). */
export function mallocEnv(dockerfile: string): Record<string, string> {
  return Object.fromEntries([...dockerfile.matchAll(/^\s*(?:ENV\s+)?(MALLOC_[A-Z_]+)=(\S+?)\s*\\?$/gm)].map((m) => [m[1]!, m[2]!]));
}

const DOCKERFILE = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
/** The repository Dockerfile's node flags. */
export const PRODUCTION_NODE_FLAGS: readonly string[] = entrypointNodeFlags(DOCKERFILE);
/** The repository Dockerfile's malloc variables. */
export const PRODUCTION_MALLOC_ENV: Readonly<Record<string, string>> = mallocEnv(DOCKERFILE);
