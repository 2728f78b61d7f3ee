import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import t from 'tap';
import { logDestination } from '../../src/common/log-destination.js';

const flushed = (d: { flush(cb: () => void): void }) => new Promise<void>((r) => d.flush(r));

t.test('every line reaches the file, in order, by the time flush calls back', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'log-destination-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const fd = openSync(join(dir, 'log'), 'w');
  t.teardown(() => closeSync(fd));
  const dest = logDestination(fd);
  const log = pino({ base: null, timestamp: false }, dest);
  for (let i = 0; i < 500; i++) log.info({ i }, 'line');
  await flushed(dest);
  const lines = readFileSync(join(dir, 'log'), 'utf8').trimEnd().split('\n');
  t.same(
    lines.map((l) => (JSON.parse(l) as { i: number }).i),
    Array.from({ length: 500 }, (_, i) => i),
  );
  t.equal(dest.broken, false);
});

t.test('a write that fails (ENOSPC here, EPIPE for a gone reader): broken, later lines dropped, flush still calls back', async (t) => {
  const fd = openSync('/dev/full', 'w');
  t.teardown(() => closeSync(fd));
  const dest = logDestination(fd);
  const log = pino({}, dest);
  log.info('first');
  await flushed(dest);
  t.equal(dest.broken, true);
  log.info('after');
  log.error('more');
  await flushed(dest);
  t.pass('flush calls back on a broken destination');
});
