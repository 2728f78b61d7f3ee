import t from 'tap';
import { secretKeyring, serviceAccountOf, templatePullSecretNames } from '../../src/images/pull-secrets.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const config = JSON.stringify({ auths: { 'ghcr.io': { auth: b64('u:p') } } });
const legacy = JSON.stringify({ 'https://index.docker.io/v1/': { auth: b64('hub:pw'), email: 'x@y' } });

t.test('which Secrets a pod template names, and its service account', (t) => {
  t.strictSame(templatePullSecretNames({ imagePullSecrets: [{ name: 'a' }, { name: 'b' }, { name: 'a' }, {}, { name: '' }] }), ['a', 'b']);
  t.strictSame(templatePullSecretNames({}), []);
  t.strictSame(templatePullSecretNames(undefined), []);
  t.equal(serviceAccountOf({ serviceAccountName: 'builder' }), 'builder');
  t.equal(serviceAccountOf({ serviceAccount: 'legacy-field' }), 'legacy-field');
  t.equal(serviceAccountOf({}), 'default');
  t.end();
});

t.test("a Secret's keyring by type", (t) => {
  const cases: Array<[string, Record<string, string>, string[], RegExp | undefined]> = [
    ['kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64(config) }, ['u'], undefined],
    ['kubernetes.io/dockercfg', { '.dockercfg': b64(legacy) }, ['hub'], undefined],
    ['kubernetes.io/dockerconfigjson', {}, [], /has no \.dockerconfigjson/],
    ['kubernetes.io/dockercfg', { '.dockerconfigjson': b64(config) }, [], /has no \.dockercfg/],
    ['kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('{"auths": {"x": {"auth": "') }, [], /is not valid JSON/],
    [
      'Opaque',
      { '.dockerconfigjson': b64(config) },
      [],
      /has type Opaque, not kubernetes\.io\/dockerconfigjson or kubernetes\.io\/dockercfg/,
    ],
  ];
  for (const [type, data, users, problem] of cases) {
    const r = secretKeyring({ type, data }, 'Secret apps/s');
    t.strictSame(
      r.keyring.map((e) => e.credentials.username),
      users,
      `${type} ${Object.keys(data).join()}`,
    );
    if (problem) t.match(r.problems.join('\n'), problem);
    else t.strictSame(r.problems, []);
  }
  t.end();
});
