/**
 * Reads what the Dockerfile's runtime stage (its last FROM) puts in the image: the files it copies from
 * the build stage, its environment, user, working directory and entry point. The container test builds
 * that tree without Docker (none runs here), so the image it proves complete is the one the Dockerfile
 * describes, not a copy of it kept in the test.
 */

export interface StageCopy {
  /** Path in the build stage, e.g. `/app/dist/src`. */
  from: string;
  /** Path in the runtime stage, relative to its WORKDIR when not absolute. */
  to: string;
}

export interface RuntimeStage {
  /** The Node.js major of NODE_IMAGE (`node:24-bookworm-slim` → 24). */
  nodeMajor: number;
  /** The exact Node.js release when NODE_IMAGE pins one (`node:24.21.0-bookworm-slim` → `24.21.0`). */
  nodeVersion?: string;
  /** The build stage's WORKDIR (where `npm ci` and `tsc` ran). */
  buildWorkdir: string;
  workdir: string;
  copies: StageCopy[];
  env: Record<string, string>;
  user: { uid: number; gid: number };
  entrypoint: string[];
}

/** Joins continued lines and drops comments and blank lines: one instruction per entry. */
export function instructions(text: string): string[] {
  const out: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!current && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1).trim()} `;
      continue;
    }
    out.push((current + line).trim());
    current = '';
  }
  if (current) out.push(current.trim());
  return out;
}

/** `KEY=value KEY2="quoted value"` (Docker's ENV and ARG forms with `=`); `${NAME}` and `$NAME` expanded from `vars`. */
export function assignments(text: string, vars: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|\S*)/g)) {
    const value = m[2]!.startsWith('"') ? m[2]!.slice(1, -1) : m[2]!;
    out[m[1]!] = expand(value, vars);
  }
  return out;
}

function expand(value: string, vars: Record<string, string>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_, a?: string, b?: string) => vars[a ?? b ?? ''] ?? '',
  );
}

/** The runtime stage of `dockerfile` (its text); throws naming what it could not find. */
export function runtimeStage(dockerfile: string): RuntimeStage {
  const lines = instructions(dockerfile);
  const stages: string[][] = [[]];
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) stages.push([]);
    stages[stages.length - 1]!.push(line);
  }
  const [global = [], ...rest] = stages;
  const build = rest.find((s) => /\sAS\s+build$/i.test(s[0] ?? ''));
  const last = rest[rest.length - 1];
  if (!build || !last || last === build) throw new Error('Dockerfile: expected a `FROM … AS build` stage and a runtime stage after it');
  const args = Object.fromEntries(
    [...global, ...last].filter((l) => /^ARG\s/i.test(l)).flatMap((l) => Object.entries(assignments(l.slice(4), {}))),
  );
  const image = args.NODE_IMAGE ?? '';
  const tag = /^node:(\d+)(\.\d+\.\d+)?\b/.exec(image);
  const nodeMajor = Number(tag?.[1]);
  if (!Number.isInteger(nodeMajor)) throw new Error(`Dockerfile: NODE_IMAGE '${image}' names no node:<major> image`);
  const operands = (stage: string[], word: string) =>
    stage.filter((l) => l.toUpperCase().startsWith(`${word} `)).map((l) => l.slice(word.length + 1).trim());
  const env: Record<string, string> = {};
  for (const e of operands(last, 'ENV')) Object.assign(env, assignments(e, { ...args, ...env }));
  const copies = operands(last, 'COPY').map((c) => {
    const words = c.split(/\s+/);
    if (words[0] !== '--from=build' || words.length !== 3)
      throw new Error(`Dockerfile: runtime stage COPY '${c}' is not 'COPY --from=build <path> <path>'`);
    return { from: words[1]!, to: words[2]! };
  });
  const [user = ''] = operands(last, 'USER');
  const [uid, gid] = user.split(':').map(Number);
  if (!Number.isInteger(uid) || !Number.isInteger(gid)) throw new Error(`Dockerfile: runtime stage USER '${user}' is not numeric uid:gid`);
  const [entry = '[]'] = operands(last, 'ENTRYPOINT');
  return {
    nodeMajor,
    ...(tag?.[2] ? { nodeVersion: `${tag[1]}${tag[2]}` } : {}),
    buildWorkdir: operands(build, 'WORKDIR').pop() ?? '/',
    workdir: operands(last, 'WORKDIR').pop() ?? '/',
    copies,
    env,
    user: { uid: uid!, gid: gid! },
    entrypoint: JSON.parse(entry) as string[],
  };
}
