/** Registry settings of loadConfig: REGISTRY_PLATFORM, REGISTRY_AUTH_FILE and REGISTRY_ALLOWED_HOSTS. */
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';

const MINIMAL = { WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes', GITHUB_TOKEN: 'ghp_test', CLUSTER_NAME: 'prod-eu-1' };
const files: Record<string, string> = {
  '/etc/auth/config.json': JSON.stringify({ auths: { 'ghcr.io': { auth: Buffer.from('u:p').toString('base64') } } }),
  '/etc/auth/broken.json': '{"auths": {"ghcr.io": {"auth": "dTpw"',
  '/etc/auth/list.json': '[]',
};
const readFile = (path: string): Buffer => {
  const text = files[path];
  if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  return Buffer.from(text);
};

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig({ ...MINIMAL, ...env }, readFile);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

t.test('defaults: linux/amd64, no auth file', (t) => {
  const c = loadConfig({ ...MINIMAL }, readFile);
  t.strictSame(c.registryPlatform, { os: 'linux', architecture: 'amd64' });
  t.notOk('registryAuthFile' in c);
  t.end();
});

t.test('valid values', (t) => {
  const c = loadConfig({ ...MINIMAL, REGISTRY_PLATFORM: 'linux/arm64/v8', REGISTRY_AUTH_FILE: '/etc/auth/config.json' }, readFile);
  t.strictSame(c.registryPlatform, { os: 'linux', architecture: 'arm64', variant: 'v8' });
  t.equal(c.registryAuthFile, '/etc/auth/config.json');
  t.strictSame(loadConfig({ ...MINIMAL, REGISTRY_PLATFORM: ' linux/arm ' }, readFile).registryPlatform, {
    os: 'linux',
    architecture: 'arm',
  });
  t.end();
});

t.test('invalid values are reported with the others, at once', (t) => {
  const found = problems({ REGISTRY_PLATFORM: 'arm64', REGISTRY_AUTH_FILE: '/etc/auth/missing.json', LOG_LEVEL: 'loud' });
  t.equal(found.length, 3);
  t.match(found.join('\n'), /REGISTRY_PLATFORM="arm64" must be os\/arch\[\/variant\]/);
  t.match(found.join('\n'), /REGISTRY_AUTH_FILE="\/etc\/auth\/missing\.json" cannot be read \(ENOENT\)/);
  t.match(problems({ REGISTRY_PLATFORM: 'linux/arm/v7/extra' })[0], /REGISTRY_PLATFORM/);
  const broken = problems({ REGISTRY_AUTH_FILE: '/etc/auth/broken.json' });
  t.match(broken[0], /REGISTRY_AUTH_FILE="\/etc\/auth\/broken\.json" is not valid JSON: expected a docker config\.json/);
  t.notMatch(broken[0], /dTpw/, 'the file content (credentials) is never echoed');
  t.match(problems({ REGISTRY_AUTH_FILE: '/etc/auth/list.json' })[0], /is not a JSON object/);
  t.end();
});

t.test('REGISTRY_ALLOWED_HOSTS: empty by default (any host), else a list of patterns', (t) => {
  t.strictSame(loadConfig({ ...MINIMAL }, readFile).registryAllowedHosts, []);
  t.strictSame(
    loadConfig({ ...MINIMAL, REGISTRY_ALLOWED_HOSTS: 'ghcr.io, *.dkr.ecr.eu-west-1.amazonaws.com,' }, readFile).registryAllowedHosts,
    ['ghcr.io', '*.dkr.ecr.eu-west-1.amazonaws.com'],
  );
  t.end();
});
