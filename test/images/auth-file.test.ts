import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { authFileKeyring } from '../../src/images/auth-file.js';
import { lookupCredentials } from '../../src/oci/docker-config.js';

const dir = mkdtempSync(join(tmpdir(), 'auth-file-test-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const b64 = (s: string) => Buffer.from(s).toString('base64');

t.test('REGISTRY_AUTH_FILE: read once, again when it changes; a bad version keeps the last good one', (t) => {
  const path = join(dir, 'config.json');
  const write = (text: string, mtime: number) => {
    writeFileSync(path, text);
    utimesSync(path, mtime, mtime);
  };
  write(JSON.stringify({ auths: { 'ghcr.io': { auth: b64('first:pw') } } }), 1_000);
  const warnings: string[] = [];
  const keyring = authFileKeyring(path, (key, _fields, message) => {
    if (!warnings.includes(`${key}|${message}`)) warnings.push(`${key}|${message}`);
  });
  const user = () => lookupCredentials(keyring(), 'ghcr.io', 'acme/app')?.username;
  t.equal(user(), 'first');

  write(JSON.stringify({ auths: { 'ghcr.io': { auth: b64('second:pw') } }, credHelpers: { 'gcr.io': 'gcloud' } }), 2_000);
  t.equal(user(), 'second', 'a rotated Secret is picked up');
  t.match(warnings.join('\n'), /credential helpers/);

  write('{"auths": {"ghcr.io": {"auth": "c2VjcmV0', 3_000);
  t.equal(user(), 'second', 'a broken version keeps the last good keyring');
  t.match(warnings.at(-1), /is not valid JSON; using its last good content/);
  t.notMatch(warnings.join('\n'), /c2VjcmV0|secret/, 'never the content');
  const count = warnings.length;
  user();
  user();
  t.equal(warnings.length, count, 'the same problem is reported once');

  rmSync(path);
  t.equal(user(), 'second', 'a vanished file keeps the last good keyring');
  t.match(warnings.at(-1), /REGISTRY_AUTH_FILE cannot be read \(ENOENT\)/);
  t.end();
});
