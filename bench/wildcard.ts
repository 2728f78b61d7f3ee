/**
 * Benchmark: wildcard pull-Secret keys (`*` per DNS label) against long host labels, the case that
 * used to backtrack for minutes. Prints the time of one credential lookup per star count.
 *   npm run bench -- wildcard
 */
import { lookupCredentials, parseDockerConfigJson } from '../src/oci/docker-config.js';

const REPEAT = 10_000;
const auth = Buffer.from('u:p').toString('base64');
for (const labelLength of [30, 63]) {
  for (const stars of [1, 5, 10, 20, 60]) {
    const { keyring } = parseDockerConfigJson(JSON.stringify({ auths: { [`${'*'.repeat(stars)}x.example`]: { auth } } }), 'bench');
    for (const [what, host] of [
      ['no match', `${'a'.repeat(labelLength)}.example`],
      ['match', `${'a'.repeat(labelLength - 1)}x.example`],
    ] as const) {
      const start = process.hrtime.bigint();
      for (let i = 0; i < REPEAT; i++) lookupCredentials(keyring, host, 'app');
      const perLookupUs = Number(process.hrtime.bigint() - start) / 1000 / REPEAT;
      process.stdout.write(`label ${labelLength} chars, ${stars} stars, ${what}: ${perLookupUs.toFixed(2)} µs per lookup\n`);
    }
  }
}
