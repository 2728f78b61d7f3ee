/**
 * Ship what we test: the image cannot be built or pulled here (no Docker engine), so this assembles the
 * Dockerfile's runtime stage (what it copies from the build stage, its ENV, USER and ENTRYPOINT) and runs it
 * with the Node.js major the image ships, read-only, as the image's user, against the simulated cluster and
 * GitHub: a file the runtime stage forgets, a native addon built for another Node, a write outside /data or
 * a dependency pruned as dev-only fails here.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { fluxEvent, startBridge } from '../harness/bridge-process.js';
import { WEBHOOK_KEY, startWorld } from '../harness/world.js';
import { OPT_IN, READY, putDeployment, putKustomization, sha } from '../e2e/scenario.js';
import { REPO_ROOT } from '../fixtures/locate.js';
import { assignments, instructions, runtimeStage } from '../harness/dockerfile.js';
import { stageImage } from './staged-image.js';

t.test('reading the Dockerfile', (t) => {
  t.same(instructions('# c\nRUN a \\\n  && b\n\nUSER 1:2\n'), ['RUN a && b', 'USER 1:2'], 'continued lines joined, comments dropped');
  t.same(assignments('A=1 B="two words" C=${X}-$Y', { X: 'x', Y: 'y' }), { A: '1', B: 'two words', C: 'x-y' });
  const sample = [
    'ARG NODE_IMAGE=node:22-slim',
    'FROM ${NODE_IMAGE} AS build',
    'WORKDIR /src',
    'FROM ${NODE_IMAGE}',
    'ARG REV=abc',
    'ENV A=1 \\',
    '    B=${REV}',
    'WORKDIR /app',
    'COPY --from=build /src/dist ./dist',
    'USER 10:20',
    'ENTRYPOINT ["node", "main.js"]',
  ].join('\n');
  t.same(runtimeStage(sample), {
    nodeMajor: 22,
    buildWorkdir: '/src',
    workdir: '/app',
    copies: [{ from: '/src/dist', to: './dist' }],
    env: { A: '1', B: 'abc' },
    user: { uid: 10, gid: 20 },
    entrypoint: ['node', 'main.js'],
  });
  t.equal(runtimeStage(sample.replace('node:22-slim', 'node:22.11.0-slim')).nodeVersion, '22.11.0', 'an exact release');
  t.throws(() => runtimeStage(sample.replace('USER 10:20', 'USER node')), /USER 'node' is not numeric/);
  t.throws(() => runtimeStage(sample.replace('COPY --from=build /src/dist ./dist', 'COPY dist ./dist')), /is not 'COPY --from=build/);
  const ours = runtimeStage(readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8'));
  t.equal(ours.nodeMajor, 24, 'the image ships Node.js 24');
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };
  t.equal(ours.nodeVersion, pkg.devDependencies.node, "NODE_IMAGE pins the release of package.json's node devDependency");
  t.equal(process.versions.node, ours.nodeVersion, 'the tests run on the Node.js release the image ships');
  t.not(ours.user.uid, 0, 'the image runs as a non-root user');
  t.match(ours.env.DATABASE_PATH, /^\/data\//, 'the database is on the /data volume');
  t.end();
});

t.test('the runtime stage runs with the Node.js it ships, read-only, as its user', async (t) => {
  const image = stageImage();
  t.teardown(() => image.close());
  const world = await startWorld();
  t.teardown(() => world.close());
  const { stage } = image;
  const version = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const env = { PATH: `${image.path('/usr/local/bin')}:/usr/sbin:/usr/bin:/sbin:/bin` };
  // setpriv: the image's USER; it execs `node` from PATH (the image's /usr/local/bin/node).
  const asUser = ['setpriv', `--reuid=${stage.user.uid}`, `--regid=${stage.user.gid}`, '--clear-groups', ...stage.entrypoint];

  // Through env(1) without NODE_OPTIONS, which tap adds to child processes (its loader, in a checkout the image's user may not read).
  const run = (argv: string[]) => spawnSync('env', ['-u', 'NODE_OPTIONS', ...argv], { cwd: image.workdir, env, encoding: 'utf8' });
  const nodeVersion = run([...asUser.slice(0, 4), 'node', '--version']);
  t.match(nodeVersion.stdout.trim(), new RegExp(`^v${stage.nodeMajor}\\.`), `the staged node is Node.js ${stage.nodeMajor}`);
  const printed = run([...asUser, '--version']);
  t.equal(printed.status, 0, printed.stderr);
  t.match(printed.stdout, version, '--version reads package.json from the image');
  t.throws(() => writeFileSync(join(image.workdir, 'probe'), 'x'), { code: 'EROFS' }, 'the image is read-only');

  // The kubeconfig where the image's user can read it; paths are the image's (DATABASE_PATH on /data).
  const kubeconfig = join(image.scratch, 'kubeconfig');
  copyFileSync(world.kubeconfig, kubeconfig);
  chmodSync(kubeconfig, 0o644);
  const bridge = await startBridge({
    env: { ...world.env({ KUBECONFIG: kubeconfig }), ...stage.env, ...env, DATABASE_PATH: image.path(stage.env.DATABASE_PATH ?? '') },
    webhookKey: WEBHOOK_KEY,
    command: { argv: asUser, cwd: image.workdir },
  });
  t.teardown(() => bridge.kill('SIGKILL'));
  const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${bridge.child.pid}/status`, 'utf8'))?.[1];
  t.equal(Number(uid), stage.user.uid, `runs as uid ${stage.user.uid}`);

  putDeployment(world, 'web', 'ghcr.io/acme/web:1', {
    ...OPT_IN,
    'github-deployment-bridge.io/repository': 'acme/web',
    'github-deployment-bridge.io/commit': sha('web-1'),
  });
  putKustomization(world, 'web', ['web'], READY);
  t.equal((await bridge.post(fluxEvent('Kustomization', 'flux-system', 'web', { reason: 'ReconciliationSucceeded' }))).status, 202);
  await bridge.waitFor('the deployment reported as success on GitHub', () =>
    world.github.deployments('acme', 'web')[0]?.statuses.some((s) => s.state === 'success'),
  );
  t.equal(world.github.deployments('acme', 'web')[0]?.sha, sha('web-1'));

  const metrics = await bridge.metrics();
  const build = /^gdb_build_info\{([^}]*)\} 1$/m.exec(metrics)?.[1] ?? '';
  t.match(build, `version="${version}"`);
  t.match(build, `commit="${stage.env.BUILD_REVISION ?? ''}"`, 'BUILD_REVISION from the image ENV');
  t.match(build, new RegExp(`node="v${stage.nodeMajor}\\.`));
  t.equal((await bridge.readyz()).status, 200, 'ready: the database on the volume is writable');
  t.equal(await bridge.kill('SIGTERM'), 0, 'a clean shutdown');
});
