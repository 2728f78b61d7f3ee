/**
 * The installs the documents give, rendered as a user would and read the way the bridge reads its settings:
 * the base alone is refused (no placeholder to forget), README's Quickstart overlay, the overlay of
 * manifests/optional/README.md and the Flux-native install (manifests/flux-install/) are accepted.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import t, { type Test } from 'tap';
import { stringify } from 'yaml';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { REPO_ROOT } from '../fixtures/locate.js';
import { bridgeContainer, readYaml, render, type Container, type Obj } from './render.js';

const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; config: { image: string } };

/** The environment a rendered container gives the bridge, with the Quickstart's Secrets created (each key a value). */
function envOf(c: Container): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of c.env) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) env[e.name] = `secret-${e.valueFrom.secretKeyRef.key}-of-at-least-32-bytes`;
  }
  return env;
}

/** The problems the bridge would stop with (none: it starts). Mounted files all hold a key. */
function problemsOf(objs: Obj[]): string[] {
  try {
    loadConfig(envOf(bridgeContainer(objs)), () => Buffer.from('a-mounted-key-of-at-least-32-bytes-long'));
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
}

/** Renders a kustomization written into a temporary folder; `{manifests}` in it stands for the path to manifests/. */
function renderWritten(t: Test, kustomization: string): Obj[] {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-install-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'kustomization.yaml'), kustomization.replaceAll('{manifests}', relative(dir, join(REPO_ROOT, 'manifests'))));
  return render(relative(REPO_ROOT, dir));
}

t.test('the base alone: no cluster name to forget, the bridge refuses to start and says why', (t) => {
  const problems = problemsOf(render('manifests'));
  t.match(problems, [/^CLUSTER_NAME is required/]);
  t.equal(problems.length, 1, 'nothing else missing');
  t.end();
});

t.test('the Forgejo component without FORGEJO_URL in the overlay: refused, not a placeholder server', (t) => {
  const overlay = `resources: [{manifests}]
components: [{manifests}/optional/forgejo]
patches:
  - target: { kind: Deployment, name: github-deployment-bridge }
    patch: '[{ "op": "add", "path": "/spec/template/spec/containers/0/env/-", "value": { "name": "CLUSTER_NAME", "value": "c" } }]'
`;
  const objs = renderWritten(t, overlay);
  t.same(problemsOf(objs), ['FORGEJO_TOKEN or FORGEJO_TOKEN_FILE is set, but FORGEJO_URL is not']);
  t.end();
});

t.test("README's Quickstart overlay, as its heredoc writes it: your image, your cluster's name, accepted", (t) => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const heredoc = /^mkdir -p my-bridge && cat > my-bridge\/kustomization\.yaml <<EOF\n([\s\S]*?)^EOF$/m.exec(readme)?.[1];
  t.ok(heredoc, 'README writes my-bridge/kustomization.yaml with a heredoc');
  const text = (heredoc ?? '')
    .replaceAll('$IMAGE', 'registry.example.com/platform/github-deployment-bridge')
    .replaceAll('$TAG', '1234567') // one short SHA in 27 is all digits: a YAML number unless quoted
    .replaceAll('../manifests', '{manifests}');
  const objs = renderWritten(t, text);
  const c = bridgeContainer(objs);
  t.equal(c.image, 'registry.example.com/platform/github-deployment-bridge:1234567', 'the image built and pushed above it');
  t.equal(envOf(c).CLUSTER_NAME, 'prod-eu');
  t.same(problemsOf(objs), []);
  t.end();
});

t.test("manifests/optional/README.md's overlay with the Forgejo component: accepted", (t) => {
  const page = readFileSync(join(REPO_ROOT, 'manifests', 'optional', 'README.md'), 'utf8');
  const block = /^```yaml\n([\s\S]*?)^```$/m.exec(page)?.[1] ?? '';
  t.match(block, 'components: [../manifests/optional/forgejo]');
  const objs = renderWritten(t, block.replaceAll('../manifests', '{manifests}'));
  t.equal(envOf(bridgeContainer(objs)).FORGEJO_URL, 'https://forgejo.example.com');
  t.same(problemsOf(objs), []);
  t.end();
});

interface FluxKustomization extends Obj {
  spec: {
    path: string;
    sourceRef: { kind: string; name: string };
    prune: boolean;
    dependsOn?: Array<{ name: string }>;
    patches?: Array<{ patch: string; target: Record<string, string> }>;
    images?: unknown[];
  };
}

t.test('manifests/flux-install: this repository at the release tag, the base patched as an overlay would, then the Flux side', (t) => {
  const objs = readYaml('manifests/flux-install/bridge.yaml');
  const repo = objs.find((o) => o.kind === 'GitRepository') as Obj & { spec: { url: string; ref: { tag: string }; ignore: string } };
  t.equal(repo.apiVersion, 'source.toolkit.fluxcd.io/v1');
  const [, owner, name] = /^ghcr\.io\/([^/]+)\/([^/]+)$/.exec(pkg.config.image) ?? [];
  t.equal(repo.spec.url, `https://github.com/${owner ?? ''}/${name ?? ''}`, 'the repository the release image is built from');
  t.equal(repo.spec.ref.tag, `v${pkg.version}`, "the tag of package.json's version, whose manifests pull that image");
  t.match(repo.spec.ignore, /^!\/manifests\/$/m);

  const kustomizations = objs.filter((o): o is FluxKustomization => o.kind === 'Kustomization');
  t.same(
    kustomizations.map((k) => [k.apiVersion, k.spec.path, k.spec.sourceRef, k.spec.prune]),
    [
      ['kustomize.toolkit.fluxcd.io/v1', './manifests', { kind: 'GitRepository', name: repo.metadata.name }, true],
      ['kustomize.toolkit.fluxcd.io/v1', './manifests/flux', { kind: 'GitRepository', name: repo.metadata.name }, true],
    ],
  );
  const [bridge, fluxSide] = kustomizations;
  t.same(fluxSide?.spec.dependsOn, [{ name: bridge?.metadata.name }], 'the Provider once the bridge is there');

  // What kustomize-controller builds: the path's kustomization with the Flux Kustomization's patches and images.
  const rendered = renderWritten(
    t,
    stringify({ resources: ['{manifests}'], patches: bridge?.spec.patches, images: bridge?.spec.images ?? [] }),
  );
  t.equal(envOf(bridgeContainer(rendered)).CLUSTER_NAME, 'prod-eu');
  t.same(problemsOf(rendered), []);
  t.end();
});

t.test("docs/install.md's overlay for each forge, as written: its image, its cluster's name, its server, accepted", (t) => {
  const page = readFileSync(join(REPO_ROOT, 'docs', 'install.md'), 'utf8');
  const section = page.slice(page.indexOf('## Each forge: the overlay, the install, the uninstall'), page.indexOf('## With Flux'));
  const blocks = [...section.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
  t.equal(blocks.length, 3, 'GitHub, Forgejo, GitLab');
  const wanted: Array<[string, Record<string, string>, string | undefined]> = [
    ['GitHub', {}, 'GITHUB_TOKEN'],
    [
      'Forgejo',
      { FORGEJO_URL: 'https://forgejo.example.com', FORGEJO_TOKEN_FILE: '/etc/github-deployment-bridge/forgejo/token' },
      undefined,
    ],
    ['GitLab', { GITLAB_URL: 'https://gitlab.example.com', GITLAB_TOKEN_FILE: '/etc/github-deployment-bridge/gitlab/token' }, undefined],
  ];
  for (const [i, [forge, env, tokenVar]] of wanted.entries()) {
    const block = blocks[i] ?? '';
    t.match(block, 'newTag: "3f2a9c1"', `${forge}: the tag quoted`);
    t.ok(block.split('\n').length <= 12, `${forge}: a short overlay (${block.split('\n').length} lines)`);
    const objs = renderWritten(t, block.replaceAll('../manifests', '{manifests}'));
    const c = bridgeContainer(objs);
    t.equal(c.image, 'registry.example.com/platform/github-deployment-bridge:3f2a9c1', `${forge}: the image`);
    const got = envOf(c);
    t.equal(got.CLUSTER_NAME, 'prod-eu', `${forge}: CLUSTER_NAME`);
    for (const [name, value] of Object.entries(env)) t.equal(got[name], value, `${forge}: ${name}`);
    if (tokenVar) t.ok(got[tokenVar], `${forge}: ${tokenVar} from its Secret`);
    // Only this forge's Secret exists (the base's GitHub one is optional): drop what a one-forge install does not create.
    if (forge !== 'GitHub') delete got.GITHUB_TOKEN;
    let problems: string[] = [];
    try {
      loadConfig(got, () => Buffer.from('a-mounted-key-of-at-least-32-bytes-long'));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems = err.problems;
    }
    t.same(problems, [], `${forge}: the bridge starts`);
  }
  t.end();
});

t.test('an all-digit tag stays a string when quoted, as every documented overlay writes it', (t) => {
  const objs = renderWritten(
    t,
    'resources: [{manifests}]\nimages:\n  - { name: ghcr.io/github-deployment-bridge/github-deployment-bridge, newName: r.example.com/b, newTag: "1234567" }\n',
  );
  t.equal(bridgeContainer(objs).image, 'r.example.com/b:1234567');
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  t.notMatch(readme, /newTag: \$TAG/, "README's heredoc quotes $TAG");
  t.end();
});
