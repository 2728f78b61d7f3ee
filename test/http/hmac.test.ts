import t from 'tap';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { signBody, verifySignature } from '../../src/http/hmac.js';
import { fluxEventsDir } from '../fixtures/locate.js';

const FIXTURES = fluxEventsDir();

interface TestVector {
  hmacKey: string;
  bodyFile: string;
  body: string;
  expectedHeaders: { 'X-Signature': string };
}

const vector = JSON.parse(readFileSync(new URL('generic-hmac-test-vector.json', FIXTURES), 'utf8')) as TestVector;
const body = readFileSync(new URL(vector.bodyFile, FIXTURES));
const key = Buffer.from(vector.hmacKey, 'utf8');
const GOLDEN = 'sha256=65b018549b1254e7226d1c08f9567ee45bc9de0fc4e7b1a40253f9a018b08be7';

const hmacHex = (alg: string, k: Buffer, b: Buffer) => createHmac(alg, k).update(b).digest('hex');

t.test('golden: the notification-controller test vector verifies', (t) => {
  t.equal(body.length, 295, 'body is the exact 295 bytes Flux signs, no trailing newline');
  t.equal(body.toString('utf8'), vector.body, 'body file and inline body agree');
  t.equal(vector.expectedHeaders['X-Signature'], GOLDEN, 'fixture pins the header Flux expects');
  t.same(verifySignature(key, body, GOLDEN), { ok: true });
  t.equal(signBody(key, body), GOLDEN, 'signBody reproduces the Flux header');
  t.equal(signBody(vector.hmacKey, vector.body), GOLDEN, 'string key and body sign the same bytes');
  t.end();
});

t.test('accepted signatures', (t) => {
  const rows: Array<[string, string]> = [
    ['sha256', `sha256=${hmacHex('sha256', key, body)}`],
    ['sha384', `sha384=${hmacHex('sha384', key, body)}`],
    ['sha512', `sha512=${hmacHex('sha512', key, body)}`],
    ['uppercase hex digest', `sha256=${hmacHex('sha256', key, body).toUpperCase()}`],
    ['uppercase algorithm', `SHA256=${hmacHex('sha256', key, body)}`],
    ['spaces around the parts', ` sha512 = ${hmacHex('sha512', key, body)} `],
  ];
  for (const [name, header] of rows) t.same(verifySignature(key, body, header), { ok: true }, name);
  t.end();
});

t.test('refused signatures', (t) => {
  const good = hmacHex('sha256', key, body);
  const flipped = Buffer.from(body);
  flipped[100] = flipped[100]! ^ 0x01;
  const withNewline = Buffer.concat([key, Buffer.from('\n')]);
  const rows: Array<[string, Buffer, Buffer, string | undefined, RegExp]> = [
    ['wrong key', Buffer.from('another key'), body, `sha256=${good}`, /does not match/],
    ['one flipped body byte', key, flipped, `sha256=${good}`, /does not match/],
    ['body with a trailing newline', key, Buffer.concat([body, Buffer.from('\n')]), `sha256=${good}`, /does not match/],
    ['key with a trailing newline (used byte for byte)', withNewline, body, `sha256=${good}`, /does not match/],
    ['missing header', key, body, undefined, /missing X-Signature/],
    ['empty header', key, body, '', /missing X-Signature/],
    ['md5 algorithm', key, body, `md5=${createHmac('md5', key).update(body).digest('hex')}`, /sha256\|sha384\|sha512/],
    ['sha1 algorithm', key, body, `sha1=${createHmac('sha1', key).update(body).digest('hex')}`, /sha256\|sha384\|sha512/],
    ['no "=" at all', key, body, good, /sha256\|sha384\|sha512/],
    ['empty algorithm', key, body, `=${good}`, /sha256\|sha384\|sha512/],
    ['empty digest', key, body, 'sha256=', /not hex/],
    ['non-hex digest', key, body, `sha256=${good.slice(0, 62)}zz`, /not hex/],
    ['base64 digest', key, body, `sha256=${createHmac('sha256', key).update(body).digest('base64')}`, /not hex|does not match/],
    ['digest one byte short', key, body, `sha256=${good.slice(0, 62)}`, /does not match/],
    ['digest one byte long', key, body, `sha256=${good}00`, /does not match/],
    ['sha512 digest labelled sha256', key, body, `sha256=${hmacHex('sha512', key, body)}`, /does not match/],
    ['sha256 digest labelled sha512', key, body, `sha512=${good}`, /does not match/],
    ['odd length: one extra hex digit', key, body, `sha256=${good}0`, /does not match|not hex/],
    ['odd length: one hex digit missing', key, body, `sha256=${good.slice(0, 63)}`, /does not match|not hex/],
  ];
  for (const [name, k, b, header, reason] of rows) {
    const r = verifySignature(k, b, header);
    t.equal(r.ok, false, `${name}: refused`);
    if (!r.ok) t.match(r.reason, reason, `${name}: reason`);
  }
  t.end();
});

t.test('the header of the key with a trailing newline differs from the golden one', (t) => {
  const withNewline = Buffer.concat([key, Buffer.from('\n')]);
  t.not(signBody(withNewline, body), GOLDEN);
  t.same(verifySignature(withNewline, body, signBody(withNewline, body)), { ok: true });
  t.end();
});

t.test('signBody round trip', (t) => {
  const bodies = [Buffer.alloc(0), Buffer.from('{}'), Buffer.from('{"é":"ü"}\n'), Buffer.from([0, 255, 10, 13])];
  const keys = [Buffer.from('k'), Buffer.from('key with spaces\n'), Buffer.from([0, 1, 2, 250])];
  for (const alg of ['sha256', 'sha384', 'sha512']) {
    for (const b of bodies) {
      for (const k of keys) {
        const header = signBody(k, b, alg);
        t.match(header, new RegExp(`^${alg}=[0-9a-f]+$`));
        t.same(verifySignature(k, b, header), { ok: true }, `${alg} over ${b.length} bytes`);
      }
    }
  }
  t.equal(signBody('k', 'x'), `sha256=${hmacHex('sha256', Buffer.from('k'), Buffer.from('x'))}`, 'default algorithm is sha256');
  t.end();
});
