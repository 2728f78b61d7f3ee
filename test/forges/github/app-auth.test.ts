import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { parseAppPrivateKey } from '../../../src/forges/github/app-jwt.js';
import { INSTALLATION_TTL_MS, InstallationResolver } from '../../../src/forges/github/installation-lookup.js';
import { InstallationStore } from '../../../src/forges/github/installation-store.js';
import { openDatabase } from '../../harness/database.js';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PKCS1 = keys.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
const PKCS8 = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const log = pino({ level: 'silent' });

t.test('private keys: PKCS#1 as GitHub downloads it, PKCS#8, escaped newlines; others refused', (t) => {
  t.equal(parseAppPrivateKey(PKCS1).asymmetricKeyType, 'rsa');
  t.equal(parseAppPrivateKey(PKCS8).asymmetricKeyType, 'rsa');
  t.equal(parseAppPrivateKey(PKCS1.trim().replace(/\n/g, '\\n')).asymmetricKeyType, 'rsa', 'one line with \\n escapes');
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  t.throws(() => parseAppPrivateKey(ec), /GitHub App keys are RSA/);
  t.throws(() => parseAppPrivateKey('not a key'));
  t.end();
});

t.test('installations: pinned, or looked up per owner and cached in SQLite with a TTL (across restarts)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gdb-inst-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'db.sqlite');
  const clock = { now: 1_000 };
  const lookups: string[] = [];
  const lookup = (r: { owner: string; repo: string }) => {
    lookups.push(`${r.owner}/${r.repo}`);
    return Promise.resolve(r.owner === 'acme' ? 11 : 22);
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
