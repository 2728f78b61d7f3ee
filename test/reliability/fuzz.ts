/**
 * Hostile webhook traffic for test/reliability/hostile-input.test.ts: a seeded PRNG, mutations of real
 * Flux payloads (bytes, JSON structure, sizes, encodings, headers, signatures) and an oracle that says,
 * from what a case sends, the exact answer the bridge owes it and the `gdb_events_total` series it counts.
 */
import { createHmac } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';

/** Mirrors of the contract under test (src/http/webhook.ts, src/flux/event.ts), restated, not imported. */
export const BODY_LIMIT = 64 * 1024;
export const MAX_FIELD_CHARS = 32 * 1024;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }
  pick<T>(a: readonly T[]): T {
    return a[this.int(a.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  weighted<T>(items: ReadonlyArray<readonly [T, number]>): T {
    let r = this.next() * items.reduce((s, [, w]) => s + w, 0);
    for (const [v, w] of items) if ((r -= w) < 0) return v;
    return items[items.length - 1]![0];
  }
}

/** What the bridge must answer, and the `gdb_events_total{kind,result}` series that request adds to. */
export interface Expected {
  code: number;
  kind: string;
  result: string;
}

export interface FuzzCase {
  id: number;
  /** `<body mutation>/<signature variant>/<content type>`: enough to find the generator branch. */
  label: string;
  body: Buffer;
  /** Content-Type, X-Signature (an array sends the header twice); Content-Length is always the body's. */
  headers: Record<string, string | string[]>;
  expected: Expected;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The Flux event contract, restated: which parsed values the bridge must accept. */
export function schemaAccepts(v: unknown): boolean {
  if (!isObject(v)) return false;
  const str = (o: Record<string, unknown>, k: string, nonEmpty = true) =>
    typeof o[k] === 'string' && (!nonEmpty || o[k].length > 0) && o[k].length <= MAX_FIELD_CHARS;
  const io = v.involvedObject;
  // Identity strings must name a possible Kubernetes object (kind identifier, DNS-1123 subdomain name ≤ 253, DNS-1123 label namespace ≤ 63).
  if (!isObject(io) || !['kind', 'name', 'namespace'].every((k) => str(io, k))) return false;
  const label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  const [kind, name, namespace] = [io.kind, io.name, io.namespace] as [string, string, string];
  if (!/^[A-Za-z][A-Za-z0-9]{0,62}$/.test(kind) || namespace.length > 63 || !label.test(namespace)) return false;
  if (name.length > 253 || !name.split('.').every((part) => label.test(part))) return false;
  if (!['severity', 'reason', 'timestamp'].every((k) => str(v, k)) || !str(v, 'message', false)) return false;
  if (Number.isNaN(Date.parse(v.timestamp as string))) return false;
  if ('metadata' in v) {
    const m = v.metadata;
    if (!isObject(m) || !Object.values(m).every((x) => typeof x === 'string' && x.length <= MAX_FIELD_CHARS)) return false;
  }
  return true;
}

/**
 * The oracle: media type, then size, then signature, then JSON, then the event schema.
 * `json`: the Content-Type names application/json (undefined: no Content-Type header sent).
 */
export function oracle(body: Buffer, json: boolean | undefined, signatureValid: boolean): Expected {
  const unknown = (code: number, result: string): Expected => ({ code, kind: 'unknown', result });
  if (json === undefined ? body.length > 0 : !json) return unknown(415, 'unsupported_media_type');
  if (body.length > BODY_LIMIT) return unknown(413, 'too_large');
  if (!signatureValid) return unknown(401, 'bad_signature');
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch {
    return unknown(400, 'bad_json');
  }
  if (!schemaAccepts(value)) return unknown(400, 'invalid_event');
  const kind = (value as { involvedObject: { kind: string } }).involvedObject.kind;
  return kind === 'Kustomization' || kind === 'HelmRelease'
    ? { code: 202, kind, result: 'accepted' }
    : { code: 202, kind: 'other', result: 'ignored' };
}

export const hmac = (key: string | Buffer, body: Buffer, alg = 'sha256'): string => createHmac(alg, key).update(body).digest('hex');

/** Content-Type variants and whether Fastify must take them as application/json. */
const CONTENT_TYPES: ReadonlyArray<readonly [string | undefined, boolean | undefined]> = [
  ['application/json; charset=utf-8', true],
  ['APPLICATION/JSON', true],
  ['Application/Json; charset="utf-8"', true],
  ['application/json;', true],
  ['application/json ; foo=bar', true],
  ['text/plain', false],
  ['application/x-www-form-urlencoded', false],
  ['application/jsonp', false],
  ['application/vnd.api+json', false],
  ['application/*', false],
  ['application/json, text/plain', false],
  ['multipart/form-data; boundary=x', false],
  ['', false],
  ['json', false],
  [undefined, undefined],
];

/** The event seeds: every Flux payload in test/fixtures/flux-events plus compact events as the harness sends them. */
export function loadSeeds(fixturesDir: URL, extra: string[]): Buffer[] {
  const files = readdirSync(fixturesDir)
    .filter((f) => f.endsWith('.json') && f !== 'generic-hmac-test-vector.json')
    .sort();
  return [...files.map((f) => readFileSync(new URL(f, fixturesDir))), ...extra.map((s) => Buffer.from(s))];
}

const UNICODE = [
  'é',
  'ß',
  '日本',
  '😀',
  '\u200b',
  '\u202e',
  '\u0301',
  '\ufeff',
  '\u0000',
  '\u001f',
  '\ud800',
  '\udfff',
  '\u2028',
  'Ω',
  '\\',
  '"',
  '𝔘',
];
const INVALID_UTF8 = [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xc0, 0xaf], [0xe2, 0x82], [0x80], [0xfe, 0xfe]];
const TIMESTAMPS = [
  '',
  'yesterday',
  '2024-13-45T25:61:00Z',
  '1720774600',
  'Fri, 12 Jul 2024 08:56:40 GMT',
  '2024-07-12',
  '0',
  '2024-07-12T08:56:40.123456789+02:00',
  'T',
  '+275760-09-13T00:00:00.000Z',
  '+275760-09-13T00:00:00.001Z',
];
const KEYS = [
  'involvedObject',
  'kind',
  'name',
  'namespace',
  'severity',
  'reason',
  'message',
  'timestamp',
  'metadata',
  'revision',
  '__proto__',
  'constructor',
  'toString',
  '',
  'x'.repeat(40),
];

/** Builds a random case each call; `next()` never repeats an id. */
export class FuzzGenerator {
  private id = 0;
  constructor(
    private readonly rng: Rng,
    private readonly key: string,
    private readonly seeds: readonly Buffer[],
  ) {}

  /** A JSON value of a type other than `than`'s (the swap of a type-swap mutation). */
  private otherValue(than: unknown): Json {
    const r = this.rng;
    const all: Array<() => Json> = [
      () => null,
      () => r.chance(0.5),
      () => r.pick([0, -1, 1.5, 1e308, -0, 2 ** 53 + 1]),
      () => r.pick(['', 'x', 'Kustomization', '2024-07-12T08:56:40Z', 'x'.repeat(r.int(64))]),
      () => [],
      () => [r.pick(['a', 1, null])],
      () => ({}),
      () => ({ a: 'b' }),
    ];
    for (;;) {
      const v = r.pick(all)();
      if (typeof v !== typeof than || Array.isArray(v) !== Array.isArray(than) || (v === null) !== (than === null)) return v;
    }
  }

  /** Every container (object or array) in a JSON value, with the path to it. */
  private containers(v: Json, out: Array<Json[] | { [k: string]: Json }> = []): Array<Json[] | { [k: string]: Json }> {
    if (Array.isArray(v)) {
      out.push(v);
      v.forEach((x) => this.containers(x, out));
    } else if (isObject(v)) {
      out.push(v);
      Object.values(v).forEach((x) => this.containers(x, out));
    }
    return out;
  }

  /** A string field of the event to put something into: message, a name, a metadata value, an extra key. */
  private setString(ev: Record<string, Json>, value: string): void {
    const io = isObject(ev.involvedObject) ? ev.involvedObject : undefined;
    const where = this.rng.int(io ? 6 : 4);
    if (where === 0) ev.message = value;
    else if (where === 1) ev.reason = value;
    else if (where === 2) ev.metadata = { ...(isObject(ev.metadata) ? ev.metadata : {}), revision: value };
    else if (where === 3) ev.extraField = value;
    else io![this.rng.pick(['name', 'namespace'])] = value;
  }

  private mutate(seed: Buffer): { name: string; body: Buffer } {
    const r = this.rng;
    const parsed = (): Record<string, Json> => {
      const v = JSON.parse(seed.toString('utf8')) as Json;
      return isObject(v) ? v : { value: v };
    };
    const name = r.weighted<string>([
      ['intact', 10],
      ['bitflip', 8],
      ['splice', 5],
      ['truncate', 5],
      ['type-swap', 10],
      ['drop-key', 5],
      ['add-key', 4],
      ['deep-nest', 6],
      ['huge-string', 8],
      ['unicode', 5],
      ['invalid-utf8', 5],
      ['duplicate-key', 5],
      ['top-level', 3],
      ['timestamp', 3],
      ['many-keys', 2],
      ['padding', 3],
    ]);
    const json = (v: unknown) => Buffer.from(JSON.stringify(v));
    switch (name) {
      case 'bitflip': {
        const b = Buffer.from(seed);
        for (let i = r.range(1, 4); i > 0; i--) {
          const at = r.int(b.length);
          b[at] = b[at]! ^ (1 << r.int(8));
        }
        return { name, body: b };
      }
      case 'splice': {
        const at = r.int(seed.length + 1);
        const bytes = Buffer.from(Array.from({ length: r.range(0, 8) }, () => r.pick([0, 0x22, 0x5c, 0x7b, 0x7d, 0xff, r.int(256)])));
        return { name, body: Buffer.concat([seed.subarray(0, at), bytes, seed.subarray(at + r.range(0, 8))]) };
      }
      case 'truncate':
        return { name, body: seed.subarray(0, r.int(seed.length)) };
      case 'type-swap': {
        const ev = parsed();
        const box = r.pick(this.containers(ev));
        const keys: Array<string | number> = Array.isArray(box) ? box.map((_, i) => i) : Object.keys(box);
        if (keys.length === 0) return { name, body: json(this.otherValue({})) };
        const k = r.pick(keys);
        (box as Record<string | number, Json>)[k] = this.otherValue((box as Record<string | number, Json>)[k]);
        return { name, body: json(ev) };
      }
      case 'drop-key': {
        const ev = parsed();
        const objs = this.containers(ev).filter((c): c is { [k: string]: Json } => !Array.isArray(c) && Object.keys(c).length > 0);
        const o = r.pick(objs);
        Reflect.deleteProperty(o, r.pick(Object.keys(o)));
        return { name, body: json(ev) };
      }
      case 'add-key': {
        const ev = parsed();
        const o = r.pick(this.containers(ev).filter((c): c is { [k: string]: Json } => !Array.isArray(c)));
        const k = r.pick(KEYS);
        // Object.defineProperty: `__proto__` becomes an own key, as JSON.parse makes it.
        Object.defineProperty(o, k, {
          value: r.chance(0.5) ? 'v' : this.otherValue('v'),
          enumerable: true,
          writable: true,
          configurable: true,
        });
        return { name, body: json(ev) };
      }
      case 'deep-nest': {
        const depth = r.pick([10_000, r.range(100, 32_000), r.range(1, 3000)]);
        const [open, close] = r.pick([
          ['[', ']'],
          ['{"a":', '}'],
          ['[{"a":', '}]'],
        ] as const);
        const tail = open === '[' ? '' : '1';
        const nested = open.repeat(depth) + tail + (r.chance(0.2) ? '' : close.repeat(depth));
        const where = r.int(3);
        if (where === 0) return { name: `${name}:bare`, body: Buffer.from(nested) };
        // Spliced into a real event as text (JSON.stringify would refuse this depth): a last `metadata`
        // replaces the event's own (400), a first unknown field is ignored (the event stands).
        const ev = seed.toString('utf8').trim();
        const body =
          where === 1
            ? `${ev.slice(0, ev.lastIndexOf('}'))},"metadata":{"deep":${nested}}}`
            : `{"extra":${nested},${ev.slice(ev.indexOf('{') + 1)}`;
        return { name: `${name}:${where === 1 ? 'metadata' : 'extra'}`, body: Buffer.from(body) };
      }
      case 'huge-string': {
        const ev = parsed();
        // [bytes, UTF-16 units] per repeat: the body limit counts bytes, the field limit counts units.
        const [unit, bytes, chars] = r.pick([
          ['x', 1, 1],
          ['é', 2, 1],
          ['😀', 4, 2],
          ['\\u00e9', 6, 1],
          ['\\"', 2, 1],
        ] as const);
        const base = json(ev).length;
        const n = Math.max(
          0,
          r.pick([Math.floor((BODY_LIMIT - base) / bytes), Math.floor(MAX_FIELD_CHARS / chars), r.int((BODY_LIMIT * 1.2) / bytes)]) +
            r.range(-3, 3),
        );
        const marker = 'HUGE_STRING_MARKER';
        this.setString(ev, marker);
        return { name: `${name}:${unit}`, body: Buffer.from(JSON.stringify(ev).replace(marker, () => unit.repeat(n))) };
      }
      case 'unicode': {
        const ev = parsed();
        const marker = 'UNICODE_MARKER';
        this.setString(ev, marker);
        const soup = Array.from({ length: r.range(1, 12) }, () => r.pick(UNICODE));
        // Lone surrogates only exist as \u escapes on the wire; the rest goes raw or escaped.
        const text = soup
          .map((c) =>
            (/[\ud800-\udfff]/.test(c) && c.length === 1) || r.chance(0.3)
              ? Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join('')
              : JSON.stringify(c).slice(1, -1),
          )
          .join('');
        return { name, body: Buffer.from(JSON.stringify(ev).replace(marker, () => text)) };
      }
      case 'invalid-utf8': {
        const ev = parsed();
        const marker = 'BAD_UTF8_MARKER';
        this.setString(ev, marker);
        const [before, after] = JSON.stringify(ev).split(marker) as [string, string];
        const bad = Buffer.from(r.pick(INVALID_UTF8));
        return { name, body: Buffer.concat([Buffer.from(before + 'a'), bad, Buffer.from('b' + after)]) };
      }
      case 'duplicate-key': {
        const text = JSON.stringify(parsed());
        const k = r.pick(KEYS.slice(0, 9));
        const v = JSON.stringify(r.chance(0.4) ? r.pick(['dup', 'Kustomization', '']) : this.otherValue('s'));
        const pair = `"${k}":${v}`;
        // Before the original (the original wins) or after it (the duplicate wins), top level or nested.
        const at = r.chance(0.5) ? 1 : text.length - 1;
        const nested = text.indexOf('"involvedObject":{');
        const pos = r.chance(0.3) && nested >= 0 ? nested + '"involvedObject":{'.length : at;
        const glue = pos === text.length - 1 ? `,${pair}` : `${pair},`;
        return { name, body: Buffer.from(text.slice(0, pos) + glue + text.slice(pos)) };
      }
      case 'top-level':
        return {
          name,
          body: Buffer.from(
            r.pick([
              '[]',
              'null',
              '"event"',
              '1',
              'true',
              '{}',
              '',
              '   ',
              '\ufeff' + seed.toString('utf8'),
              '[' + seed.toString('utf8') + ']',
            ]),
          ),
        };
      case 'timestamp': {
        const ev = parsed();
        ev.timestamp = r.pick(TIMESTAMPS);
        return { name, body: json(ev) };
      }
      case 'many-keys': {
        const ev = parsed();
        const bad = r.chance(0.3);
        ev.metadata = Object.fromEntries(
          Array.from({ length: r.range(500, 4000) }, (_, i) => [`k${i}`, bad && i % 997 === 0 ? i : `v${i}`]),
        );
        return { name, body: json(ev) };
      }
      case 'padding': {
        const text = seed.toString('utf8');
        return {
          name,
          body: Buffer.from(r.pick([` \n\t${text}\r\n `, `${text}garbage`, `${text}}`, `/*c*/${text}`, `${text}\u0000`, `${text},`])),
        };
      }
      default:
        return { name: 'intact', body: seed };
    }
  }

  /** A signature header variant for `body`, and whether the bridge must take it as valid. */
  private sign(body: Buffer): { name: string; header: string | string[] | undefined; valid: boolean } {
    const r = this.rng;
    const good = hmac(this.key, body);
    const name = r.weighted<string>([
      ['sha256', 60],
      ['sha384', 4],
      ['sha512', 4],
      ['upper-hex', 3],
      ['upper-alg', 2],
      ['spaced', 2],
      ['missing', 4],
      ['empty', 2],
      ['wrong-alg', 3],
      ['no-alg', 2],
      ['truncated', 3],
      ['extended', 2],
      ['non-hex', 2],
      ['wrong-key', 3],
      ['other-body', 3],
      ['twice', 3],
    ]);
    switch (name) {
      case 'sha384':
      case 'sha512':
        return { name, header: `${name}=${hmac(this.key, body, name)}`, valid: true };
      case 'upper-hex':
        return { name, header: `sha256=${good.toUpperCase()}`, valid: true };
      case 'upper-alg':
        return { name, header: `SHA256=${good}`, valid: true };
      case 'spaced':
        return { name, header: `sha256 = ${good}`, valid: true };
      case 'missing':
        return { name, header: undefined, valid: false };
      case 'empty':
        return { name, header: r.pick(['', 'sha256=', '=']), valid: false };
      case 'wrong-alg': {
        const alg = r.pick(['sha1', 'md5', 'sha224', 'sha3-256']);
        return { name, header: `${r.pick([alg, 'sha-256', 'hmac-sha256'])}=${hmac(this.key, body, alg)}`, valid: false };
      }
      case 'no-alg':
        return { name, header: good, valid: false };
      case 'truncated':
        return { name, header: `sha256=${good.slice(0, r.range(0, 63))}`, valid: false };
      case 'extended':
        return { name, header: `sha256=${good}${r.pick(['0', '00', 'ab', good])}`, valid: false };
      case 'non-hex':
        return { name, header: `sha256=${good.slice(0, 63)}${r.pick(['g', 'z', ' ', 'é', '-'])}`, valid: false };
      case 'wrong-key':
        return { name, header: `sha256=${hmac(`${this.key}x`, body)}`, valid: false };
      case 'other-body': {
        const other = this.rng.pick(this.seeds);
        return { name, header: `sha256=${hmac(this.key, other)}`, valid: other.equals(body) };
      }
      // Node joins repeated headers with ", ": never a valid digest, even twice the right one.
      case 'twice':
        return { name, header: [`sha256=${good}`, r.pick([`sha256=${good}`, 'sha256=00'])], valid: false };
      default:
        return { name: 'sha256', header: `sha256=${good}`, valid: true };
    }
  }

  next(): FuzzCase {
    const r = this.rng;
    const { name, body } = this.mutate(r.pick(this.seeds));
    const sig = this.sign(body);
    const [contentType, json] = r.chance(0.85) ? (['application/json', true] as const) : r.pick(CONTENT_TYPES);
    const headers: Record<string, string | string[]> = {};
    if (contentType !== undefined) headers['content-type'] = contentType;
    if (sig.header !== undefined) headers['x-signature'] = sig.header;
    return {
      id: this.id++,
      label: `${name}/${sig.name}/${contentType ?? '(none)'}`,
      body,
      headers,
      expected: oracle(body, json, sig.valid),
    };
  }

  /** Cases every run sends whatever the seed: the named hostile shapes, each once. */
  anchors(event: Buffer): FuzzCase[] {
    // null: no Content-Type header (an `undefined` argument would take the default).
    const signed = (label: string, body: Buffer, contentType: string | null = 'application/json'): FuzzCase => ({
      id: this.id++,
      label: `anchor:${label}`,
      body,
      headers: { ...(contentType !== null ? { 'content-type': contentType } : {}), 'x-signature': `sha256=${hmac(this.key, body)}` },
      expected: oracle(body, contentType === null ? undefined : contentType === 'application/json', true),
    });
    const ev = JSON.parse(event.toString('utf8')) as Record<string, Json>;
    const withMessage = (n: number) =>
      Buffer.from(JSON.stringify({ ...ev, message: '' }).replace('"message":""', `"message":"${'x'.repeat(n)}"`));
    const fill = BODY_LIMIT - withMessage(0).length;
    return [
      signed('valid', event),
      signed('10k-open-brackets', Buffer.from('['.repeat(10_000))),
      signed('10k-nested-arrays', Buffer.from('['.repeat(10_000) + ']'.repeat(10_000))),
      signed(
        '32k-nested-in-extra-field',
        Buffer.from(`{"extra":${'['.repeat(16_000)}${']'.repeat(16_000)},` + event.toString('utf8').trim().slice(1)),
      ),
      signed('body-exactly-at-limit', withMessage(fill)),
      signed('body-one-over-limit', withMessage(fill + 1)),
      signed('field-at-char-limit', withMessage(MAX_FIELD_CHARS)),
      signed('field-one-over-char-limit', withMessage(MAX_FIELD_CHARS + 1)),
      signed('schema-invalid-but-signed', Buffer.from(JSON.stringify({ ...ev, involvedObject: 'Kustomization' }))),
      signed('empty-body', Buffer.alloc(0)),
      signed('empty-body-no-content-type', Buffer.alloc(0), null),
      signed('body-without-content-type', event, null),
      signed('text-plain', event, 'text/plain'),
    ];
  }
}
