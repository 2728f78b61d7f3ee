/**
 * scripts/spoke-kubeconfig.sh (docs/fleet.md), run against a stand-in kubectl that answers what a spoke's would:
 * the kubeconfig it prints is one the bridge accepts for a spoke (src/kube/spoke-kubeconfig.ts), and what would not
 * make a valid file is refused with a clear line and no output.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parse } from 'yaml';
import { checkSpokeKubeconfig } from '../../src/kube/spoke-kubeconfig.js';
import { REPO_ROOT } from '../fixtures/locate.js';

/** Runs scripts/spoke-kubeconfig.sh with a stand-in kubectl answering from `answers`; returns its output and calls. */
function runScript(args: string[], answers: { server?: string; token?: string; ca?: string }) {
  const dir = mkdtempSync(join(tmpdir(), 'spoke-kubeconfig-'));
  try {
    const fake = join(dir, 'kubectl');
    writeFileSync(
      fake,
      [
        '#!/bin/sh',
        'echo "$*" >> "$FAKE_LOG"',
        'case "$*" in',
        '  *"config view"*) printf %s "$FAKE_SERVER" ;;',
        '  *"{.data.token}"*) printf %s "$FAKE_TOKEN" ;;',
        '  *"{.data.ca\\.crt}"*) printf %s "$FAKE_CA" ;;',
        'esac',
        '',
      ].join('\n'),
    );
    chmodSync(fake, 0o755);
    writeFileSync(join(dir, 'log'), '');
    const r = spawnSync('sh', [join(REPO_ROOT, 'scripts/spoke-kubeconfig.sh'), ...args], {
      encoding: 'utf8',
      env: {
        PATH: `${dir}:${process.env.PATH ?? ''}`,
        FAKE_LOG: join(dir, 'log'),
        FAKE_SERVER: answers.server ?? '',
        FAKE_TOKEN: answers.token === undefined ? '' : Buffer.from(answers.token).toString('base64'),
        FAKE_CA: answers.ca === undefined ? '' : Buffer.from(answers.ca).toString('base64'),
      },
    });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, calls: readFileSync(join(dir, 'log'), 'utf8').trim().split('\n') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

t.test("spoke-kubeconfig.sh: a self-contained kubeconfig from the reader's token Secret", (t) => {
  const r = runScript(['prod-eu', 'spoke-admin'], { server: 'https://10.0.0.1:6443', token: 'eyJhbGciOi.x.y', ca: PEM });
  t.equal(r.status, 0, r.stderr);
  const kc = parse(r.stdout) as Record<string, unknown>;
  t.same(kc, {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      { name: 'prod-eu', cluster: { server: 'https://10.0.0.1:6443', 'certificate-authority-data': Buffer.from(PEM).toString('base64') } },
    ],
    users: [{ name: 'github-deployment-bridge-reader', user: { token: 'eyJhbGciOi.x.y' } }],
    contexts: [{ name: 'prod-eu', context: { cluster: 'prod-eu', user: 'github-deployment-bridge-reader' } }],
    'current-context': 'prod-eu',
  });
  t.same(
    checkSpokeKubeconfig(r.stdout),
    { credentials: { server: 'https://10.0.0.1:6443', caData: PEM, insecureSkipTlsVerify: false, token: 'eyJhbGciOi.x.y' } },
    "accepted by the bridge as a self-contained spoke kubeconfig, TLS verified with the spoke's CA",
  );
  t.ok(
    r.calls.every((c) => c.startsWith('--context spoke-admin ')),
    "every read goes to the spoke's context",
  );
  t.ok(r.calls.some((c) => c.includes('-n github-deployment-bridge get secret github-deployment-bridge-reader-token')));
  t.end();
});

t.test('spoke-kubeconfig.sh: the server as the hub reaches it, when given', (t) => {
  const r = runScript(['prod-us', 'ctx', 'https://prod-us.internal:443'], { server: 'https://127.0.0.1:6443', token: 'a.b.c', ca: PEM });
  t.equal(r.status, 0, r.stderr);
  t.match(parse(r.stdout), { clusters: [{ cluster: { server: 'https://prod-us.internal:443' } }] });
  t.notOk(
    r.calls.some((c) => c.includes('config view')),
    "the context's server is not asked for",
  );
  t.end();
});

t.test('spoke-kubeconfig.sh: refuses what would not make a valid file, with a clear line and no output', (t) => {
  const ok = { server: 'https://10.0.0.1:6443', token: 'a.b.c', ca: PEM };
  const cases: Array<[string, string[], typeof ok | Partial<typeof ok>, RegExp, number]> = [
    ['no arguments', [], ok, /usage: /, 2],
    ['a path as the cluster', ['../etc'], ok, /cannot name a cluster's kubeconfig file/, 2],
    ['a hidden name', ['.x'], ok, /cannot name/, 2],
    ['a space in the cluster', ['a b'], ok, /cannot name/, 2],
    ['plain http', ['c'], { ...ok, server: 'http://10.0.0.1:6443' }, /must be an https:\/\/ URL/, 1],
    ['a quote in the server', ['c', 'x', "https://a'b"], ok, /must be an https:\/\/ URL/, 1],
    ['a YAML comment in the server', ['c', 'x', 'https://a#b'], ok, /must be an https:\/\/ URL/, 1],
    ['no server', ['c'], { ...ok, server: '' }, /must be an https:\/\/ URL/, 1],
    ['no token yet', ['c'], { server: ok.server, ca: PEM }, /has no token or ca\.crt yet/, 1],
    ['no CA', ['c'], { server: ok.server, token: 'a.b.c' }, /has no token or ca\.crt yet/, 1],
  ];
  for (const [what, args, answers, message, status] of cases) {
    const r = runScript(args, answers);
    t.equal(r.status, status, `${what}: exit ${status}`);
    t.match(r.stderr, message, what);
    t.equal(r.stdout, '', `${what}: no partial kubeconfig`);
  }
  t.end();
});
