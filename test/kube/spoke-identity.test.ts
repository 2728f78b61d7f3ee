/** Flux's `generic` workload identity, read with the bridge's own projected tokens (src/kube/spoke-identity.ts). */
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { KubeError } from '../../src/common/errors.js';
import { configMapAudiences, configMapIdentity, genericCredentials, readTokenDir, tokenAudiences } from '../../src/kube/spoke-identity.js';

const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (aud: unknown) => `${part({ alg: 'RS256' })}.${part({ aud, sub: 'system:serviceaccount:flux-system:bridge' })}.c2ln`;
const ADDRESS = 'https://spoke.example:6443';
const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----';

t.test('tokenAudiences: the aud claim as a list, [] for what is not a JWT', (t) => {
  const cases: Array<[string, string, string[]]> = [
    ['a string', jwt(ADDRESS), [ADDRESS]],
    ['a list', jwt([ADDRESS, 'other']), [ADDRESS, 'other']],
    ['non-strings dropped', jwt([ADDRESS, 42, null]), [ADDRESS]],
    ['no aud', `${part({ alg: 'RS256' })}.${part({ sub: 'x' })}.c2ln`, []],
    ['an opaque token', 'bridge-service-account-token', []],
    ['a payload that is not JSON', 'a.b.c', []],
  ];
  for (const [name, token, want] of cases) t.same(tokenAudiences(token), want, name);
  t.end();
});

t.test("configMapAudiences: the ConfigMap's audiences, one per line, else its address (Flux's default)", (t) => {
  t.same(configMapAudiences({}, ADDRESS), [ADDRESS]);
  t.same(configMapAudiences({ audiences: '' }, ADDRESS), [ADDRESS]);
  t.same(configMapAudiences({ audiences: ' one \n\ntwo\n' }, ADDRESS), ['one', 'two']);
  t.end();
});

t.test('genericCredentials: the https address, its ca.crt, and only the token minted for its audience', (t) => {
  const tokens = [
    { path: '/t/other', token: jwt('https://elsewhere.example') },
    { path: '/t/spoke', token: jwt([ADDRESS]) },
  ];
  t.same(genericCredentials({ provider: 'generic', address: `${ADDRESS}/`, audiences: ADDRESS, 'ca.crt': CA }, tokens), {
    credentials: { server: ADDRESS, caData: `${CA}\n`, insecureSkipTlsVerify: false, token: tokens[1]!.token },
    tokenFile: '/t/spoke',
  });
  t.match(
    genericCredentials({ address: ADDRESS }, tokens),
    { credentials: { server: ADDRESS, token: tokens[1]!.token } },
    'no ca.crt: the system CAs',
  );
  t.notOk('caData' in (genericCredentials({ address: ADDRESS }, tokens) as { credentials: object }).credentials);
  t.match(
    genericCredentials({ address: ADDRESS, audiences: 'https://elsewhere.example' }, tokens),
    { tokenFile: '/t/other' },
    'audiences win',
  );
  const refusals: Array<[string, Record<string, string>, RegExp, string]> = [
    ['no address', {}, /needs data.address/, 'kubeconfig_refused'],
    ['not a URL', { address: 'spoke 6443' }, /is not a URL/, 'kubeconfig_refused'],
    ['plain http', { address: 'http://spoke.example:6443' }, /is not https: a token is never sent in clear/, 'kubeconfig_refused'],
    ['a ca.crt that is no PEM', { address: ADDRESS, 'ca.crt': 'not pem' }, /not a PEM certificate/, 'kubeconfig_refused'],
    [
      'no token for the audience',
      { address: 'https://third.example' },
      /no token in CLUSTER_TOKEN_DIR has the audience "https:\/\/third.example"/,
      'no_credentials',
    ],
  ];
  for (const [name, data, reason, failure] of refusals) t.match(genericCredentials(data, tokens), { refused: reason, failure }, name);
  t.end();
});

t.test("readTokenDir: the files of a projected volume, by name, through the kubelet's symlinks, hidden ones skipped", (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-tokens-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, '..2026_12_06'));
  writeFileSync(join(dir, '..2026_12_06', 'spoke'), 'tok-spoke\n');
  symlinkSync('..2026_12_06', join(dir, '..data'));
  symlinkSync(join('..data', 'spoke'), join(dir, 'spoke'));
  writeFileSync(join(dir, 'another'), 'tok-another');
  writeFileSync(join(dir, 'empty'), '\n');
  writeFileSync(join(dir, 'huge'), 'x'.repeat(70_000));
  mkdirSync(join(dir, 'sub'));
  t.same(readTokenDir(dir), [
    { path: join(dir, 'another'), token: 'tok-another' },
    { path: join(dir, 'spoke'), token: 'tok-spoke' },
  ]);
  t.same(readTokenDir(join(dir, 'missing')), [], 'a missing directory holds no token');
  t.end();
});

t.test('configMapIdentity: generic with a token is read; every other case a failure naming the way out', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-tokens-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'spoke'), jwt(ADDRESS));
  const ref = { namespace: 'fleet', name: 'prod-eu', cluster: 'prod-eu' };
  const hub = (data: Record<string, string> | null | Error) => ({
    getConfigMap: () => (data instanceof Error ? Promise.reject(data) : Promise.resolve(data)),
  });
  const generic = { provider: 'generic', address: ADDRESS };
  t.match(await configMapIdentity(hub(generic), ref, dir), {
    source: `ConfigMap fleet/prod-eu (generic, token ${join(dir, 'spoke')})`,
    credentials: { server: ADDRESS, token: jwt(ADDRESS) },
  });
  const cases: Array<[string, ReturnType<typeof hub> | object, string | undefined, string, RegExp]> = [
    [
      'aws',
      hub({ provider: 'aws' }),
      dir,
      'unsupported_provider',
      /provider "aws"\) is not supported: put a kubeconfig for prod-eu in CLUSTER_KUBECONFIG_DIR, or use spec.kubeConfig.secretRef/,
    ],
    ['no provider', hub({ address: ADDRESS }), dir, 'unsupported_provider', /provider ""\)/],
    ['generic without CLUSTER_TOKEN_DIR', hub(generic), undefined, 'no_credentials', /provider "generic"\) needs CLUSTER_TOKEN_DIR/],
    ['not found', hub(null), dir, 'no_credentials', /^ConfigMap fleet\/prod-eu not found$/],
    [
      'forbidden, with a token dir',
      hub(new KubeError('forbidden', 403)),
      dir,
      'no_credentials',
      /cannot read ConfigMap fleet\/prod-eu \(forbidden\): grant get on it/,
    ],
    ['forbidden, without', hub(new KubeError('forbidden', 403)), undefined, 'unsupported_provider', /provider unknown: forbidden\)/],
    ['a reader without ConfigMaps', {}, dir, 'unsupported_provider', /provider unknown\)/],
    [
      'a refused ConfigMap',
      hub({ provider: 'generic', address: 'http://spoke.example' }),
      dir,
      'kubeconfig_refused',
      /^ConfigMap fleet\/prod-eu: data.address/,
    ],
  ];
  for (const [name, reader, tokenDir, failure, why] of cases)
    t.match(await configMapIdentity(reader, ref, tokenDir), { failure, why }, name);
  await t.rejects(
    configMapIdentity(hub(new KubeError('connection refused')), ref, dir),
    /connection refused/,
    'the hub unreachable: thrown, retried',
  );
});
