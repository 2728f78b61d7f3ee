/**
 * A self-signed ECDSA P-256 certificate built with Node's crypto and a few lines of DER, for the
 * registry's token auth (`rootcertbundle`), and server certificates it signs (a spoke's API server over
 * HTTPS): no openssl binary needed.
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

export interface SelfSignedCert {
  /** The subject's common name. */
  commonName: string;
  privateKey: KeyObject;
  /** The certificate, DER. */
  der: Buffer;
  /** The certificate, PEM. */
  pem: string;
}

/** One DER element: tag, definite length, contents. */
function der(tag: number, ...contents: Buffer[]): Buffer {
  const body = Buffer.concat(contents);
  let length: Buffer;
  if (body.length < 0x80) length = Buffer.from([body.length]);
  else {
    const bytes: number[] = [];
    for (let n = body.length; n > 0; n >>= 8) bytes.unshift(n & 0xff);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, body]);
}

const seq = (...c: Buffer[]): Buffer => der(0x30, ...c);
const set = (...c: Buffer[]): Buffer => der(0x31, ...c);
const bool = (v: boolean): Buffer => der(0x01, Buffer.from([v ? 0xff : 0x00]));
const octets = (b: Buffer): Buffer => der(0x04, b);
const utf8 = (s: string): Buffer => der(0x0c, Buffer.from(s, 'utf8'));
const explicit = (n: number, c: Buffer): Buffer => der(0xa0 + n, c);

function integer(b: Buffer): Buffer {
  let v = b;
  while (v.length > 1 && v[0] === 0 && v[1]! < 0x80) v = v.subarray(1);
  return der(0x02, v[0]! >= 0x80 ? Buffer.concat([Buffer.from([0]), v]) : v);
}

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift(0x80 | (v & 0x7f));
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

/** UTCTime, YYMMDDHHMMSSZ (valid for years 1950-2049). */
function utcTime(d: Date): Buffer {
  const text = d.toISOString().replace(/[-:T]/g, '').slice(2, 14);
  return der(0x17, Buffer.from(`${text}Z`, 'ascii'));
}

const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const COMMON_NAME = '2.5.4.3';
const BASIC_CONSTRAINTS = '2.5.29.19';
const KEY_USAGE = '2.5.29.15';

const SUBJECT_ALT_NAME = '2.5.29.17';

/** The DER certificate signed by `signer`, as PEM. */
function signed(tbs: Buffer, signer: KeyObject): { der: Buffer; pem: string } {
  const signature = sign('sha256', tbs, signer); // DER-encoded ECDSA, as X.509 wants
  const certificate = seq(tbs, seq(oid(ECDSA_WITH_SHA256)), der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const base64 = certificate.toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '');
  return { der: certificate, pem: `-----BEGIN CERTIFICATE-----\n${base64}\n-----END CERTIFICATE-----\n` };
}

/** The to-be-signed part of a v3 certificate of `subject`'s public key, issued by `issuer`, valid from an hour ago. */
function toBeSigned(o: { subject: string; issuer: string; publicKey: KeyObject; days: number; extensions: Buffer[] }): Buffer {
  const name = (cn: string) => seq(set(seq(oid(COMMON_NAME), utf8(cn))));
  const now = Date.now();
  const serial = randomBytes(12);
  serial[0]! &= 0x7f;
  return seq(
    explicit(0, integer(Buffer.from([2]))), // v3
    integer(serial),
    seq(oid(ECDSA_WITH_SHA256)),
    name(o.issuer),
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + o.days * 86_400_000))),
    name(o.subject),
    o.publicKey.export({ type: 'spki', format: 'der' }),
    explicit(3, seq(...o.extensions)),
  );
}

/** A CA certificate for `commonName`, valid from an hour ago for `days` days. */
export function selfSignedCertificate(commonName: string, days = 2): SelfSignedCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  // keyUsage: digitalSignature (bit 0) and keyCertSign (bit 5): 0b10000100, 2 unused bits.
  const keyUsage = seq(oid(KEY_USAGE), bool(true), octets(der(0x03, Buffer.from([0x02, 0x84]))));
  const basicConstraints = seq(oid(BASIC_CONSTRAINTS), bool(true), octets(seq(bool(true))));
  const tbs = toBeSigned({ subject: commonName, issuer: commonName, publicKey, days, extensions: [basicConstraints, keyUsage] });
  return { commonName, privateKey, ...signed(tbs, privateKey) };
}

/**
 * A server certificate for the IPv4 address `ip` (its subjectAltName; CN too), signed by `ca`
 * (selfSignedCertificate's), valid from an hour ago for `days` days: what a TLS client verifying with the CA accepts.
 */
export function serverCertificate(ca: SelfSignedCert, ip: string, days = 2): SelfSignedCert {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const address = Buffer.from(ip.split('.').map(Number));
  // subjectAltName: one iPAddress (context tag 7, primitive); keyUsage: digitalSignature only (0b10000000, 7 unused bits).
  const san = seq(oid(SUBJECT_ALT_NAME), octets(seq(der(0x87, address))));
  const keyUsage = seq(oid(KEY_USAGE), bool(true), octets(der(0x03, Buffer.from([0x07, 0x80]))));
  const basicConstraints = seq(oid(BASIC_CONSTRAINTS), bool(true), octets(seq()));
  const tbs = toBeSigned({ subject: ip, issuer: ca.commonName, publicKey, days, extensions: [basicConstraints, keyUsage, san] });
  return { commonName: ip, privateKey, ...signed(tbs, ca.privateKey) };
}
