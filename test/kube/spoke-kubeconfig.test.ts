import t from 'tap';
import { MAX_KUBECONFIG_CHARS, checkSpokeKubeconfig } from '../../src/kube/spoke-kubeconfig.js';

const pem = (what: string) => Buffer.from(`-----BEGIN ${what}-----\nMIIB\n-----END ${what}-----\n`).toString('base64');
const CA = pem('CERTIFICATE');
const CERT = pem('CERTIFICATE');
const KEY = pem('PRIVATE KEY');

/** A kubeconfig with one context `c` of cluster fields `cluster` and user fields `user`, as YAML (JSON is YAML). */
function kubeconfig(cluster: Record<string, unknown>, user: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'spoke', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'c', context: { cluster: 'spoke', user: 'u' } }],
    'current-context': 'c',
    ...extra,
  });
}

const SERVER = { server: 'https://10.0.0.1:6443', 'certificate-authority-data': CA };

t.test('self-contained kubeconfigs are accepted, as plain values', (t) => {
  t.same(checkSpokeKubeconfig(kubeconfig(SERVER, { token: 'tok' })), {
    credentials: {
      server: 'https://10.0.0.1:6443',
      caData: Buffer.from(CA, 'base64').toString(),
      insecureSkipTlsVerify: false,
      token: 'tok',
    },
  });
  const cert = checkSpokeKubeconfig(
    kubeconfig({ ...SERVER, 'tls-server-name': 'api' }, { 'client-certificate-data': CERT, 'client-key-data': KEY }),
  );
  t.match(cert, { credentials: { tlsServerName: 'api', certData: /BEGIN CERTIFICATE/, keyData: /BEGIN PRIVATE KEY/ } });
  t.notOk('token' in ('credentials' in cert ? cert.credentials : {}), 'no token');
  t.match(checkSpokeKubeconfig(kubeconfig({ server: 'http://127.0.0.1:8080', 'insecure-skip-tls-verify': true }, { token: 't' })), {
    credentials: { server: 'http://127.0.0.1:8080', insecureSkipTlsVerify: true },
  });
  t.match(checkSpokeKubeconfig(kubeconfig({ server: 'https://a.example/prefix/', 'insecure-skip-tls-verify': true }, { token: 't' })), {
    credentials: { server: 'https://a.example/prefix' },
  });
  const yaml = [
    'apiVersion: v1',
    'clusters:',
    '- name: spoke',
    '  cluster:',
    '    server: https://spoke:6443',
    `    certificate-authority-data: ${CA}`,
    'users:',
    '- name: u',
    '  user:',
    '    token: abc',
    'contexts:',
    '- name: only',
    '  context: {cluster: spoke, user: u}',
  ].join('\n');
  t.match(
    checkSpokeKubeconfig(yaml),
    { credentials: { server: 'https://spoke:6443', token: 'abc' } },
    'YAML; the only context without current-context',
  );
  t.end();
});

t.test('anything that runs a program, reads a local file or is not self-contained is refused, with its reason', (t) => {
  const table: Array<[string, string, RegExp]> = [
    ['exec', kubeconfig(SERVER, { exec: { command: 'aws', args: ['eks', 'get-token'] } }), /runs a program \(exec\)/],
    ['auth-provider', kubeconfig(SERVER, { 'auth-provider': { name: 'gcp' } }), /auth-provider/],
    [
      'tokenFile',
      kubeconfig(SERVER, { tokenFile: '/var/run/secrets/kubernetes.io/serviceaccount/token' }),
      /token from a file \(tokenFile\)/,
    ],
    [
      'client-certificate path',
      kubeconfig(SERVER, { 'client-certificate': '/etc/x.crt', 'client-key-data': KEY }),
      /client certificate from a file/,
    ],
    ['client-key path', kubeconfig(SERVER, { 'client-certificate-data': CERT, 'client-key': '/etc/x.key' }), /client key from a file/],
    [
      'certificate-authority path',
      kubeconfig({ server: 'https://a:6443', 'certificate-authority': '/etc/ca.crt' }, { token: 't' }),
      /CA from a file/,
    ],
    ['basic auth', kubeconfig(SERVER, { username: 'admin', password: 'p' }), /basic auth/],
    ['proxy-url', kubeconfig({ ...SERVER, 'proxy-url': 'http://proxy:3128' }, { token: 't' }), /proxy/],
    ['impersonation', kubeconfig(SERVER, { token: 't', as: 'system:admin' }), /impersonates/],
    ['an unknown user field', kubeconfig(SERVER, { token: 't', 'made-up': 'x' }), /has the field made-up/],
    ['no CA, TLS verified', kubeconfig({ server: 'https://a:6443' }, { token: 't' }), /no certificate-authority-data/],
    [
      'a CA that is not PEM',
      kubeconfig({ server: 'https://a:6443', 'certificate-authority-data': 'bm90IGEgY2VydA==' }, { token: 't' }),
      /not a base64 PEM/,
    ],
    ['plain http, TLS verified', kubeconfig({ server: 'http://a:8080', 'certificate-authority-data': CA }, { token: 't' }), /not https/],
    ['no server', kubeconfig({ 'certificate-authority-data': CA }, { token: 't' }), /no valid server URL/],
    ['a file URL', kubeconfig({ server: 'file:///etc/passwd', 'insecure-skip-tls-verify': true }, { token: 't' }), /not https/],
    ['no credentials', kubeconfig(SERVER, {}), /no credentials/],
    ['a certificate without its key', kubeconfig(SERVER, { 'client-certificate-data': CERT }), /both be base64 PEM/],
    ['no current context', kubeconfig(SERVER, { token: 't' }, { 'current-context': 'other' }), /no context "other"/],
    ['not YAML', 'clusters: [unclosed', /not valid YAML/],
    ['not a mapping', '- a\n- b\n', /not a YAML mapping/],
    ['too long', 'x'.repeat(MAX_KUBECONFIG_CHARS + 1), /longer than/],
  ];
  for (const [what, text, reason] of table) {
    const r = checkSpokeKubeconfig(text);
    t.ok('refused' in r, `${what}: refused`);
    t.match('refused' in r ? r.refused : '', reason, what);
  }
  t.end();
});
