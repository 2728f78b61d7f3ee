import t from 'tap';
import { generateKeyPairSync, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { AppJwt, parseAppPrivateKey, signAppJwt } from '../../src/github/app-jwt.js';
import { InstallationTokens, TOKEN_REFRESH_MARGIN_MS } from '../../src/github/installation-tokens.js';
import { INSTALLATION_TTL_MS, InstallationResolver } from '../../src/github/installation-lookup.js';
import { openDatabase } from '../../src/store/database.js';
import { InstallationStore } from '../../src/store/installation-store.js';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PKCS1 = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const PKCS8 = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const log = pino({ level: 'silent' });

t.test('the App JWT is RS256, signed with the App key, verified with the public key; claims as GitHub asks', async (t) => {
  const now = 1_700_000_000_500;
  const { jwt, expiresAt } = signAppJwt(4242, parseAppPrivateKey(PKCS1), now);
  const [h, p, s] = jwt.split('.') as [string, string, string];
  t.same(JSON.parse(Buffer.from(h, 'base64url').toString()), { alg: 'RS256', typ: 'JWT' });
  t.ok(verify('sha256', Buffer.from(`${h}.${p}`), keys.publicKey, Buffer.from(s, 'base64url')), 'the public key verifies it');
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  t.notOk(verify('sha256', Buffer.from(`${h}.${p}`), other.publicKey, Buffer.from(s, 'base64url')), 'another key does not');
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  t.same(claims, { iat: 1_700_000_000 - 60, exp: 1_700_000_000 + 540, iss: '4242' }, 'issued a minute back, at most 10 minutes long');
  t.equal(expiresAt, (1_700_000_000 + 540) * 1000);
});

t.test('private keys: PKCS#1 as GitHub downloads it, PKCS#8, escaped newlines; others refused', async (t) => {
  t.equal(parseAppPrivateKey(PKCS1).asymmetricKeyType, 'rsa');
  t.equal(parseAppPrivateKey(PKCS8).asymmetricKeyType, 'rsa');
  t.equal(parseAppPrivateKey(PKCS1.trim().replace(/\n/g, '\\n')).asymmetricKeyType, 'rsa', 'one line with \\n escapes');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  t.throws(() => parseAppPrivateKey(ec), /GitHub App keys are RSA/);
  t.throws(() => parseAppPrivateKey('not a key'));
});

t.test('the JWT is reused until shortly before it expires', async (t) => {
  const clock = { now: 1_700_000_000_000 };
  const jwt = new AppJwt(1, parseAppPrivateKey(PKCS1), () => clock.now);
  const first = jwt.get();
  clock.now += 7 * 60_000;
  t.equal(jwt.get(), first, 'reused 7 minutes later');
  clock.now += 60_000;
  t.not(jwt.get(), first, 're-signed within a minute of expiry');
  const second = jwt.get();
  jwt.invalidate();
  clock.now += 1000;
  t.not(jwt.get(), second, 're-signed after invalidate');
});

t.test('installation tokens: reused, minted again before expiry, one mint for concurrent requests, dropped after a 401', async (t) => {
  const clock = { now: 0 };
  const mints: number[] = [];
  const tokens = new InstallationTokens(
    async (id) => {
      mints.push(id);
      await new Promise((r) => setImmediate(r));
      return { token: `tok-${id}-${mints.length}`, expiresAt: clock.now + 60 * 60_000 };
    },
    () => clock.now,
  );
  const [a, b] = await Promise.all([tokens.get(7), tokens.get(7)]);
  t.equal(a, 'tok-7-1');
  t.equal(b, a, 'concurrent requests share one mint');
  clock.now = 60 * 60_000 - TOKEN_REFRESH_MARGIN_MS - 1;
  t.equal(await tokens.get(7), 'tok-7-1', 'still valid outside the margin');
  clock.now += 1;
  t.equal(await tokens.get(7), 'tok-7-2', 'refreshed before it expires');
  t.equal(await tokens.get(8), 'tok-8-3', 'one token per installation');
  tokens.invalidate(7);
  t.equal(await tokens.get(7), 'tok-7-4');
  t.same(mints, [7, 7, 8, 7]);
});

t.test('installations: pinned, or looked up per owner and cached in SQLite with a TTL (across restarts)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-inst-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'db.sqlite');
  const clock = { now: 1_000 };
  const lookups: string[] = [];
  const lookup = async (r: { owner: string; repo: string }) => {
    lookups.push(`${r.owner}/${r.repo}`);
    return r.owner === 'acme' ? 11 : 22;
  };
  let db = openDatabase(path);
  let resolver = new InstallationResolver({ cache: new InstallationStore(db), lookup, now: () => clock.now, log });
  t.same(
    await Promise.all([resolver.installationFor({ owner: 'acme', repo: 'web' }), resolver.installationFor({ owner: 'acme', repo: 'api' })]),
    [11, 11],
  );
  t.equal(await resolver.installationFor({ owner: 'ACME', repo: 'docs' }), 11, 'owners are case-insensitive');
  t.equal(await resolver.installationFor({ owner: 'globex', repo: 'x' }), 22);
  t.same(lookups, ['acme/web', 'globex/x'], 'one look-up per owner');
  db.close();
  db = openDatabase(path);
  resolver = new InstallationResolver({ cache: new InstallationStore(db), lookup, now: () => clock.now, log });
  t.equal(await resolver.installationFor({ owner: 'acme', repo: 'web' }), 11);
  t.same(lookups, ['acme/web', 'globex/x'], 'remembered across a restart');
  clock.now += INSTALLATION_TTL_MS;
  t.equal(await resolver.installationFor({ owner: 'acme', repo: 'web' }), 11);
  t.same(lookups.at(-1), 'acme/web', 'looked up again after the TTL');
  resolver.forget(22);
  await resolver.installationFor({ owner: 'globex', repo: 'y' });
  t.same(lookups.at(-1), 'globex/y', 'a forgotten installation is looked up again');
  const pinned = new InstallationResolver({ pinned: 99, cache: new InstallationStore(db), lookup, now: () => clock.now, log });
  const before = lookups.length;
  t.equal(await pinned.installationFor({ owner: 'anyone', repo: 'x' }), 99);
  t.equal(lookups.length, before, 'a pinned installation is never looked up');
  db.close();
});
