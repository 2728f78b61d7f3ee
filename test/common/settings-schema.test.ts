/** The schema interpreter on its own: a setting is one declaration, whatever its kind. */
import t from 'tap';
import { integer, text, url } from '../../src/common/setting-parsers.js';
import { INVALID, combine, readSettings, secret, setting } from '../../src/common/settings-schema.js';

const files: Record<string, string> = { '/run/secrets/forge': 'tok-from-file\n' };
const readFile = (path: string): Buffer => {
  const body = files[path];
  if (body === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
  return Buffer.from(body);
};

// A forge like the one to come: a URL and an optional token (inline or a file), plus a setting built of two.
const SCHEMA = {
  forgeUrl: setting('FORGE_URL', { parse: url(['https:']), doc: 'forge base URL' }),
  forgeToken: secret('FORGE_TOKEN', { decode: (bytes) => bytes.toString('utf8').trim(), doc: 'forge token' }),
  limits: combine(
    {
      low: setting('LOW', { parse: integer(0, 9), default: '1', doc: 'low' }),
      high: setting('HIGH', { parse: integer(0, 9), default: '5', doc: 'high' }),
    },
    ({ low, high }, source) => {
      if (low === INVALID || high === INVALID) return INVALID;
      return low <= high ? { low, high } : source.problem(`LOW=${low} must not exceed HIGH=${high}`);
    },
  ),
  name: setting('NAME', { parse: text, required: 'the name', doc: 'name' }),
};

t.test('values, defaults, absent optional settings, a frozen result', (t) => {
  const read = readSettings(SCHEMA, { NAME: ' n ', FORGE_TOKEN_FILE: '/run/secrets/forge' }, readFile);
  t.ok(read.ok);
  if (!read.ok) return t.end();
  t.strictSame(read.config, { forgeToken: 'tok-from-file', limits: { low: 1, high: 5 }, name: 'n' });
  t.notOk('forgeUrl' in read.config, 'unset and optional: absent');
  t.ok(Object.isFrozen(read.config));
  t.end();
});

t.test('every problem at once, in declaration order', (t) => {
  const read = readSettings(SCHEMA, { FORGE_URL: 'http://forge', FORGE_TOKEN: 'x', FORGE_TOKEN_FILE: '/f', LOW: '7', HIGH: '3' }, readFile);
  t.strictSame(read, {
    ok: false,
    problems: [
      'FORGE_URL="http://forge" must be an https: URL',
      'set only one of FORGE_TOKEN and FORGE_TOKEN_FILE',
      'LOW=7 must not exceed HIGH=3',
      'NAME is required: the name',
    ],
  });
  t.strictSame(readSettings(SCHEMA, { NAME: 'n', FORGE_TOKEN_FILE: '/nope' }, readFile), {
    ok: false,
    problems: ['FORGE_TOKEN_FILE="/nope" cannot be read (ENOENT)'],
  });
  t.end();
});

t.test('README rows: alternatives on one row, the default as written', (t) => {
  t.strictSame(
    Object.values(SCHEMA).flatMap((s) => s.rows),
    [
      { names: ['FORGE_URL'], shown: '—', doc: 'forge base URL' },
      { names: ['FORGE_TOKEN', 'FORGE_TOKEN_FILE'], shown: '—', doc: 'forge token' },
      { names: ['LOW'], shown: '`1`', doc: 'low' },
      { names: ['HIGH'], shown: '`5`', doc: 'high' },
      { names: ['NAME'], shown: 'required', doc: 'name' },
    ],
  );
  t.end();
});
