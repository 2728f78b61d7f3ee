/**
 * The registry client against the real docker-registry in token-auth mode: the registry verifies
 * ES256 JWTs from the harness token service against its rootcertbundle.
 */
import t from 'tap';
import { RegistryError } from '../../src/common/errors.js';
import { createRegistryClient } from '../../src/oci/registry-client.js';
import { parseImageReference } from '../../src/oci/reference.js';
import { pushImage, pushIndex } from '../harness/push-image.js';
import { TOKEN_SERVICE, startRegistry } from '../harness/registry.js';
import { parseScope } from '../harness/token-server.js';

const registry = await startRegistry({
  auth: 'token',
  users: { ci: 'ci-secret', reader: 'read-only' },
  isPublic: (repo) => repo.startsWith('public/'),
});
t.teardown(() => registry.close());
const token = registry.token!;
const push = (repo: string) => ({ bearer: token.mint('ci', [{ type: 'repository', name: repo, actions: ['pull', 'push'] }]) });
const host = registry.host;
/** The token service is another plain-HTTP host: the client must be allowed to reach it too. */
const insecureHosts = [host, new URL(token.realm).host];
const ACCEPT = { accept: 'application/vnd.docker.distribution.manifest.v2+json' };

const privateDigest = await pushImage(registry.url, 'private/app', 'v1', { labels: { team: 'a' }, auth: push('private/app') });
const publicIndex = await pushIndex(
  registry.url,
  'public/tool',
  '1.0',
  [{ labels: { arch: 'amd64' } }, { architecture: 'arm', variant: 'v7', labels: { arch: 'arm' } }],
  { attestation: true, auth: push('public/tool') },
);

async function failure(p: Promise<unknown>): Promise<RegistryError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RegistryError) return err;
    throw err;
  }
  throw new Error('expected a RegistryError');
}

t.test('the registry itself refuses requests without a token, and a forged token', async (t) => {
  const res = await fetch(`${registry.url}/v2/private/app/manifests/v1`, {
    method: 'HEAD',
    headers: ACCEPT,
    signal: AbortSignal.timeout(5000),
  });
  t.equal(res.status, 401);
  t.match(
    res.headers.get('www-authenticate'),
    new RegExp(`^Bearer realm="${token.realm}",service="${TOKEN_SERVICE}",scope="repository:private/app:pull"`),
  );
  const real = token.mint('ci', [{ type: 'repository', name: 'private/app', actions: ['pull'] }]);
  const forged = `${real.slice(0, real.lastIndexOf('.'))}.${Buffer.alloc(64, 1).toString('base64url')}`;
  const bad = await fetch(`${registry.url}/v2/private/app/manifests/v1`, {
    method: 'HEAD',
    headers: { ...ACCEPT, authorization: `Bearer ${forged}` },
    signal: AbortSignal.timeout(5000),
  });
  t.equal(bad.status, 401, 'a token with a bad signature is refused');
  const good = await fetch(`${registry.url}/v2/private/app/manifests/v1`, {
    method: 'HEAD',
    headers: { ...ACCEPT, authorization: `Bearer ${real}` },
    signal: AbortSignal.timeout(5000),
  });
  t.equal(good.status, 200, 'the minted token is accepted');
});

t.test('private image: labels with credentials exchanged at the token service, denied without', async (t) => {
  const withCreds = createRegistryClient({ insecureHosts, credentialsFor: () => ({ username: 'reader', password: 'read-only' }) });
  t.strictSame(await withCreds.imageMetadata(`${host}/private/app:v1`), { digest: privateDigest, labels: { team: 'a' } });
  const last = token.log.at(-1)!;
  t.match(last, { user: 'reader', scopes: ['repository:private/app:pull'], status: 200 });

  const anonymous = createRegistryClient({ insecureHosts });
  const denied = await failure(anonymous.imageMetadata(`${host}/private/app:v1`));
  t.equal(denied.failure, 'denied', 'an empty grant makes the registry refuse');
  t.equal(denied.message, `${host} denied pull of private/app: add an imagePullSecret or REGISTRY_AUTH_FILE`);

  const realmNotListed = await failure(createRegistryClient({ insecureHosts: [host] }).imageMetadata(`${host}/private/app:v1`));
  t.equal(realmNotListed.failure, 'tls', 'credentials never go to a plain-HTTP token realm that is not listed');
  t.equal(
    realmNotListed.message,
    `refusing http://${new URL(token.realm).host}: only HTTPS, or plain HTTP to hosts listed in REGISTRY_INSECURE_HOSTS`,
  );

  const wrong = createRegistryClient({ insecureHosts, credentialsFor: () => ({ username: 'reader', password: 'nope' }) });
  const rejected = await failure(wrong.imageMetadata(`${host}/private/app:v1`));
  t.equal(rejected.failure, 'denied');
  t.match(rejected.message, /token service 127\.0\.0\.1:\d+ rejected the credentials/);
});

t.test('public multi-arch index anonymously: HEAD resolves the tag, reads by digest pick the platform', async (t) => {
  const arm = createRegistryClient({ insecureHosts, platform: { os: 'linux', architecture: 'arm', variant: 'v7' } });
  const ref = parseImageReference(`${host}/public/tool:1.0`);
  t.equal(await arm.resolveTag(ref), publicIndex.digest, 'the tag resolves to the index digest');
  t.strictSame(await arm.readDigest({ ...ref, digest: publicIndex.digest }), {
    digest: publicIndex.digest,
    platformDigest: publicIndex.platforms['linux/arm/v7'],
    labels: { arch: 'arm' },
  });
  t.equal(arm.platform, 'linux/arm/v7');
  t.ok(
    token.log.every((r) => r.scopes.every((s) => parseScope(s)?.actions.join() === 'pull' || r.user === 'ci')),
    'the client only ever asks to pull',
  );
});
