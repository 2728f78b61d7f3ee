import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { REPO_ROOT } from '../fixtures/locate.js';
import { bridgeContainer, readYaml, render } from './render.js';
import { instructions, runtimeStage } from '../harness/dockerfile.js';

/** package.json: the version, and `config.image`, the one place the image name is written. */
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; config: { image: string } };
const WORKFLOW = '.github/workflows/release.yml';

interface Step {
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Workflow {
  on: { push: { tags: string[] } };
  permissions: Record<string, string>;
  jobs: Record<string, { permissions: Record<string, string>; steps: Step[] }>;
}

t.test('the manifests pull the image the release workflow pushes: package.json config.image at its version', (t) => {
  t.match(pkg.config.image, /^ghcr\.io\/[a-z0-9-]+\/[a-z0-9-]+$/, 'a lower-case ghcr.io name (the workflow logs in there)');
  const kustomization = readYaml('manifests/kustomization.yaml')[0] as unknown as { images: unknown };
  t.same(kustomization.images, [{ name: 'github-deployment-bridge', newName: pkg.config.image, newTag: pkg.version }]);
  t.equal(bridgeContainer(render('manifests')).image, `${pkg.config.image}:${pkg.version}`);
  t.end();
});

t.test('an images: override beside the base runs an image you pushed yourself (README Quickstart)', (t) => {
  const overlay = readYaml('test/manifests/own-image/kustomization.yaml')[0] as unknown as {
    images: Array<{ name: string; newName: string; newTag: string }>;
  };
  const [override] = overlay.images;
  t.equal(override?.name, pkg.config.image, 'the override names the image the base renders');
  t.equal(bridgeContainer(render('test/manifests/own-image')).image, `${override?.newName ?? ''}:${override?.newTag ?? ''}`);
  t.end();
});

t.test('release workflow: a version tag builds amd64 and arm64, pushes the tag, attaches SBOM and provenance', (t) => {
  const text = readFileSync(join(REPO_ROOT, WORKFLOW), 'utf8');
  const wf = parse(text) as Workflow;
  t.same(wf.on.push.tags, ['v[0-9]+.[0-9]+.[0-9]+'], 'runs on version tags only');
  t.same(wf.permissions, {}, 'no permission unless a job asks');
  const jobs = Object.values(wf.jobs);
  t.equal(jobs.length, 1);
  const job = jobs[0]!;
  t.same(job.permissions, { contents: 'read', packages: 'write', 'id-token': 'write' }, 'id-token only for the keyless signature');
  t.notMatch(text, pkg.config.image, 'the image name is read from package.json, not written here');
  t.match(text, `require('./package.json').config.image`);
  t.match(text, `"$TAG" != "v$version"`, 'a tag that is not package.json version fails the release');
  const build = job.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'));
  t.match(build?.with, {
    context: '.',
    platforms: 'linux/amd64,linux/arm64',
    push: true,
    tags: '${{ steps.meta.outputs.image }}:${{ steps.meta.outputs.version }}',
    sbom: true,
    provenance: 'mode=max',
  });
  t.match(build?.with?.['build-args'], /^VERSION=\$\{\{ steps\.meta\.outputs\.version \}\}\nREVISION=\$\{\{ github\.sha \}\}$/m);
  t.ok(
    job.steps.some((s) => s.uses?.startsWith('docker/setup-qemu-action@')),
    'emulation for the platform the runner is not',
  );
  const report = job.steps.at(-1);
  t.equal(report?.env?.DIGEST, '${{ steps.build.outputs.digest }}');
  t.match(report?.run, /\$DIGEST.*GITHUB_STEP_SUMMARY/s, 'the pushed digest is reported with the tag');
  t.end();
});

t.test('supply chain: actions pinned by commit, the base by digest at release, the pushed digest signed keyless', (t) => {
  const text = readFileSync(join(REPO_ROOT, WORKFLOW), 'utf8');
  const job = Object.values((parse(text) as Workflow).jobs)[0]!;
  const uses = job.steps.flatMap((s) => s.uses ?? []);
  t.ok(uses.length >= 6);
  for (const u of uses) t.match(u, /^[\w-]+\/[\w-]+@[0-9a-f]{40}$/, `${u}: a commit, not a tag that can move`);
  for (const line of text.split('\n').filter((l) => /uses: /.test(l)))
    t.match(line, /@[0-9a-f]{40} # v\d+\.\d+\.\d+$/, 'the release tag it is, in a comment');
  const names = job.steps.map((s) => (s as { name?: string; uses?: string }).name ?? s.uses ?? '');
  const base = job.steps.find((s) => (s as { name?: string }).name === 'Base image by digest');
  t.match(base?.run, /imagetools inspect "\$base"/, 'the tag resolved to its digest');
  const build = job.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'));
  t.match(build?.with?.['build-args'], /^NODE_IMAGE=\$\{\{ steps\.base\.outputs\.image \}\}$/m, 'built from that digest');
  const sign = job.steps.find((s) => s.run?.startsWith('cosign sign'));
  t.equal(sign?.run, 'cosign sign --yes "$IMAGE@$DIGEST"', 'keyless: no key, the digest pushed');
  t.equal(sign?.env?.DIGEST, '${{ steps.build.outputs.digest }}');
  t.ok(
    names.findIndex((n) => n.startsWith('sigstore/cosign-installer@')) > names.findIndex((n) => n === 'Build and push'),
    'cosign installed and run after the push',
  );
  t.end();
});

t.test('the runtime stage carries no package manager: npm, npx and corepack removed', (t) => {
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const runtime = instructions(dockerfile.slice(dockerfile.lastIndexOf('\nFROM ')));
  const removed = runtime.filter((l) => l.startsWith('RUN ')).join(' ');
  for (const path of [
    '/usr/local/lib/node_modules/npm',
    '/usr/local/lib/node_modules/corepack',
    '/usr/local/bin/npm',
    '/usr/local/bin/npx',
    '/usr/local/bin/corepack',
  ])
    t.match(removed, new RegExp(`rm -rf [^&]*${path.replace(/\//g, '\\/')}(\\s|$)`), `${path} removed`);
  t.match(runtimeStage(dockerfile).entrypoint, ['node'], 'node itself stays');
  t.end();
});
