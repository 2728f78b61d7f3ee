/** The wake signals' reader (what bench/rollout-latency.ts attributes each status to), as a table. */
import t from 'tap';
import { deliveredBy, wakesFrom } from './wake-signals.js';

const APPS = 'Kustomization/flux-system/apps';
const WEB = 'Kustomization/flux-system/web';

t.test('wakesFrom reads the `via` field, whatever the message says, oldest first', (t) => {
  const wakes = wakesFrom([
    { time: 30, via: 'watch', woken: [APPS], msg: 'any words' },
    { time: 10, via: 'resync', fluxObjects: 2, msg: 'resync pass done' },
    { time: 20, via: 'event', fluxObject: WEB, msg: 'event queued' },
    { time: 40, msg: 'rollout changed: reconciling its Flux objects', workload: 'Deployment/apps/web' },
    { time: 50, via: 'carrier pigeon', fluxObject: WEB },
    { time: 'not a time', via: 'event', fluxObject: WEB },
  ]);
  t.same(wakes, [
    { via: 'resync', at: 10, fluxObjects: 'all' },
    { via: 'event', at: 20, fluxObjects: [WEB] },
    { via: 'watch', at: 30, fluxObjects: [APPS] },
  ]);
  t.end();
});

t.test('deliveredBy: the last wake of the Flux object between the change and the status, else a re-check', (t) => {
  const wakes = wakesFrom([
    { time: 10, via: 'resync' },
    { time: 20, via: 'event', fluxObject: WEB },
    { time: 30, via: 'watch', woken: [APPS, WEB] },
    { time: 40, via: 'event', fluxObject: APPS },
  ]);
  const cases: Array<[string, number, number, string]> = [
    [APPS, 0, 15, 'resync'],
    [APPS, 11, 35, 'watch'],
    [APPS, 11, 45, 'event'],
    [WEB, 11, 25, 'event'],
    [WEB, 21, 100, 'watch'],
    [APPS, 41, 100, 're-check'],
    [WEB, 11, 19, 're-check'],
    ['Kustomization/flux-system/other', 11, 100, 're-check'],
  ];
  for (const [flux, from, until, want] of cases) t.equal(deliveredBy(wakes, flux, from, until), want, `${flux} in [${from}, ${until}]`);
  t.end();
});
