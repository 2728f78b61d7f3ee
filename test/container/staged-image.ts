/**
 * The container image's file tree without Docker: the build stage's results (production node_modules
 * built by the container's Node.js, dist/ compiled with tsconfig.build.json), then only what the
 * Dockerfile's runtime stage copies, the container's `node` binary at /usr/local/bin, mounted read-only
 * (a pod's readOnlyRootFilesystem) with a writable volume at /data. Needs root (mount, and the image's
 * non-root user by setpriv), as CI runs.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { REPO_ROOT } from '../fixtures/locate.js';
import { runtimeStage, type RuntimeStage } from '../harness/dockerfile.js';

export interface StagedImage {
  stage: RuntimeStage;
  /** The image's root, read-only. */
  root: string;
  /** The runtime stage's WORKDIR inside `root`. */
  workdir: string;
  /** A directory the test may use for files the container reads (kubeconfig): readable by the image's user. */
  scratch: string;
  /** Container paths inside `root` (`/data/x.db` → `<root>/data/x.db`). */
  path(containerPath: string): string;
  close(): void;
}

const sh = (cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 2 ** 20 })
    .toString()
    .trim();

/**
 * The bin directory of the container's Node.js: the one the tests run on (package.json's `node` devDependency,
 * which npm's scripts put first on PATH), refused unless it is the exact release the Dockerfile's NODE_IMAGE names.
 */
function containerNodeBin(stage: RuntimeStage): string {
  if (stage.nodeVersion !== process.versions.node)
    throw new Error(
      `the tests run on Node.js ${process.versions.node}, the image ships ${stage.nodeVersion ?? `node:${stage.nodeMajor}`}: run them through npm (npm test), which uses package.json's node devDependency`,
    );
  return dirname(process.execPath);
}

/** The environment for running npm under the container's Node (without tap's loader in NODE_OPTIONS). */
function underNode(nodeBin: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${nodeBin}:${process.env.PATH ?? ''}` };
  delete env.NODE_OPTIONS;
  return env;
}

/**
 * The build stage (its WORKDIR's contents): production dependencies installed by the container's Node,
 * cached in .cache/build-stage by lockfile and Node version, and
 * dist/ compiled afresh. The Dockerfile runs `npm ci` then `npm prune --omit=dev`; `npm ci --omit=dev`
 * leaves the same production tree without building what the prune removes.
 */
function buildStage(nodeBin: string): string {
  const files = ['package.json', 'package-lock.json'];
  const nodeVersion = sh(join(nodeBin, 'node'), ['--version']);
  const hash = createHash('sha256').update(nodeVersion);
  for (const f of files) hash.update(readFileSync(join(REPO_ROOT, f)));
  const dir = join(REPO_ROOT, '.cache', 'build-stage', hash.digest('hex').slice(0, 16));
  if (!existsSync(join(dir, '.complete'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const f of files) copyFileSync(join(REPO_ROOT, f), join(dir, f));
    sh('npm', ['ci', '--omit=dev', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, env: underNode(nodeBin) });
    writeFileSync(join(dir, '.complete'), `${nodeVersion}\n`);
  }
  rmSync(join(dir, 'dist'), { recursive: true, force: true });
  sh(
    process.execPath,
    [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', join(dir, 'dist')],
    {
      cwd: REPO_ROOT,
    },
  );
  return dir;
}

/** Assembles the image from the Dockerfile and mounts it read-only, with a writable volume at /data. */
export function stageImage(): StagedImage {
  if (process.getuid?.() !== 0)
    throw new Error('the container test runs as root (as CI does): it mounts the image read-only and runs as its user');
  const stage = runtimeStage(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
  const nodeBin = containerNodeBin(stage);
  const build = buildStage(nodeBin);
  const base = mkdtempSync(join(tmpdir(), 'gdb-image-'));
  chmodSync(base, 0o755);
  const tree = join(base, 'tree');
  const root = join(base, 'rootfs');
  const volume = join(base, 'volume');
  const scratch = join(base, 'scratch');
  const mounts: string[] = [];
  const close = () => {
    for (const m of mounts.reverse()) sh('umount', ['-l', m]);
    rmSync(base, { recursive: true, force: true });
  };
  try {
    for (const c of stage.copies) {
      const from = join(build, relative(stage.buildWorkdir, c.from));
      if (!existsSync(from)) throw new Error(`Dockerfile copies ${c.from}, which the build stage does not have`);
      // Docker's rule: a destination ending in / is a directory the source goes into.
      const to = join(tree, isAbsolute(c.to) ? c.to : join(stage.workdir, c.to), /\/$|^\.$/.test(c.to) ? basename(from) : '');
      mkdirSync(dirname(to), { recursive: true });
      cpSync(from, to, { recursive: true, verbatimSymlinks: true });
    }
    mkdirSync(join(tree, 'usr', 'local', 'bin'), { recursive: true });
    copyFileSync(join(nodeBin, 'node'), join(tree, 'usr', 'local', 'bin', 'node'));
    chmodSync(join(tree, 'usr', 'local', 'bin', 'node'), 0o755);
    mkdirSync(join(tree, 'data'), { recursive: true });
    for (const d of [root, volume, scratch]) mkdirSync(d);
    chownSync(volume, stage.user.uid, stage.user.gid);
    chmodSync(scratch, 0o755);
    sh('mount', ['--bind', tree, root]);
    mounts.push(root);
    sh('mount', ['-o', 'remount,bind,ro', root]);
    sh('mount', ['--bind', volume, join(root, 'data')]);
    mounts.push(join(root, 'data'));
  } catch (err) {
    close();
    throw err;
  }
  return { stage, root, workdir: join(root, stage.workdir), scratch, path: (p) => join(root, p), close };
}
