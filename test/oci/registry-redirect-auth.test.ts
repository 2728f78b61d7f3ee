/**
 * Credentials after a redirect, with three local servers: registry A (Basic, the pull's
 * credentials) serves the manifest and redirects the config blob to registry B, which challenges for a Bearer token from its
 * token service C. A's credentials must never reach B or C: B's challenge is answered with the
 * credentials the pull has for B, anonymously when it has none (containerd's rule).
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { RegistryError } from '../../src/common/errors.js';
import type { Credentials } from '../../src/oci/registry-auth.js';
import { createRegistryClient } from '../../src/oci/registry-client.js';

interface Seen {
  path: string;
  authorization: string | undefined;
}

interface Server {
  host: string;
  seen: Seen[];
  close(): Promise<void>;
}

async function serve(handle: (req: IncomingMessage, res: ServerResponse, path: string) => void): Promise<Server> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    seen.push({ path, authorization: req.headers.authorization });
    handle(req, res, path);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    host: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const basic = (c: Credentials) => `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const ALICE = { username: 'alice', password: 'a-secret-for-registry-a' };
const BOB = { username: 'bob', password: 'b-secret' };

const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Labels: { revision: 'abc123' } } }));
const manifest = Buffer.from(
  JSON.stringify({
    schemaVersion: 2,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
    config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha(config), size: config.length },
    layers: [],
  }),
);

// C: the token service of B; a token for bob's credentials or an anonymous one, nothing else.
const c = await serve((req, res) => {
  const who = req.headers.authorization === undefined ? 'anonymous' : req.headers.authorization === basic(BOB) ? 'bob' : undefined;
  if (who === undefined) res.writeHead(401).end();
  else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: `token-${who}`, expires_in: 300 }));
});
// B: the registry the blob reads are redirected to; it wants a token from C.
const b = await serve((req, res, path) => {
  if (!/^Bearer token-(anonymous|bob)$/.test(req.headers.authorization ?? '')) {
    res.writeHead(401, { 'www-authenticate': `Bearer realm="http://${c.host}/token",service="b"` }).end();
  } else if (path.includes('/manifests/')) {
    res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json' }).end(manifest);
  } else if (path.endsWith(`/blobs/${sha(config)}`)) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(config);
  } else res.writeHead(404).end();
});
// A: the image's registry; Basic with alice's credentials, serves the manifest, redirects blobs to B.
const a = await serve((req, res, path) => {
  if (req.headers.authorization !== basic(ALICE)) res.writeHead(401, { 'www-authenticate': 'Basic realm="a"' }).end();
  else if (path.includes('/manifests/')) res.writeHead(200, { 'content-type': 'application/vnd.oci.image.manifest.v1+json' }).end(manifest);
  else res.writeHead(307, { location: `http://${b.host}${path}` }).end();
});
t.teardown(async () => {
  await Promise.all([a.close(), b.close(), c.close()]);
});

const insecureHosts = [a.host, b.host, c.host];
const leaked = () => [...b.seen, ...c.seen].filter((s) => s.authorization === basic(ALICE));

t.test('no credentials for B: B and its token service get none of A, the pull reads anonymously', async (t) => {
  const client = createRegistryClient({ insecureHosts, credentialsFor: (registry) => (registry === a.host ? ALICE : undefined) });
  const meta = await client.imageMetadata(`${a.host}/team/app:v1`).catch((e: unknown) => e);
  t.strictSame(leaked(), [], "A's credentials reached neither B nor C");
  t.strictSame(meta, { digest: sha(manifest), labels: { revision: 'abc123' } });
  t.ok(c.seen.length > 0 && c.seen.every((s) => s.authorization === undefined), 'the token service was asked anonymously');
  t.ok(
    a.seen.some((s) => s.authorization === basic(ALICE)),
    'A itself got its credentials',
  );
  t.equal(c.seen.length, 1, 'one token for the one redirected read');
  const again = await client.imageMetadata(`${a.host}/team/app:v1`).catch((e: unknown) => e);
  t.strictSame(again, meta);
  t.equal(c.seen.length, 1, "B's token is cached for the next redirected read");
});

t.test("credentials for B (the workload's own, per host): B's token service gets B's, never A's", async (t) => {
  c.seen.length = 0;
  const client = createRegistryClient({ insecureHosts });
  const own = (registry: string) => Promise.resolve(registry === a.host ? ALICE : registry === b.host ? BOB : undefined);
  const meta = await client.imageMetadata(`${a.host}/team/app:v1`, { credentials: own }).catch((e: unknown) => e);
  t.strictSame(leaked(), []);
  t.strictSame(meta, { digest: sha(manifest), labels: { revision: 'abc123' } });
  t.strictSame(
    c.seen.map((s) => s.authorization),
    [basic(BOB)],
  );
});

t.test('REGISTRY_ALLOWED_HOSTS: a redirect or a token service outside the list is refused before it is made', async (t) => {
  const before = b.seen.length;
  const onlyA = createRegistryClient({ insecureHosts, allowedHosts: [a.host], credentialsFor: () => ALICE });
  const err = await onlyA.imageMetadata(`${a.host}/team/app:v1`).catch((e: unknown) => e);
  t.ok(err instanceof RegistryError);
  t.equal((err as RegistryError).failure, 'not_allowed');
  t.equal((err as RegistryError).message, `refusing ${b.host}: not listed in REGISTRY_ALLOWED_HOSTS`);
  t.equal(b.seen.length, before, 'B was never contacted');

  const noToken = createRegistryClient({ insecureHosts, allowedHosts: [a.host, b.host], credentialsFor: () => ALICE });
  const err2 = await noToken.imageMetadata(`${a.host}/team/app:v1`).catch((e: unknown) => e);
  t.match(err2, { failure: 'not_allowed', message: `refusing ${c.host}: not listed in REGISTRY_ALLOWED_HOSTS` });

  const wildcard = createRegistryClient({ insecureHosts, allowedHosts: [a.host.replace(/^127\.0\.0\.1/, '127.0.0.*'), b.host, c.host] });
  const err3 = await wildcard.imageMetadata(`${a.host}/team/app:v1`).catch((e: unknown) => e);
  t.match(err3, { failure: 'denied' }, 'a wildcard pattern lets A be asked (it denies the anonymous pull)');
  const refused = await wildcard.imageMetadata(`localhost:1/team/app:v1`).catch((e: unknown) => e);
  t.match(refused, { failure: 'not_allowed', message: 'refusing localhost:1: not listed in REGISTRY_ALLOWED_HOSTS' });
});
