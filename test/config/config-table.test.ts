import t from 'tap';
import { readFileSync } from 'node:fs';
import { configTable, withConfigTable } from '../../src/config/config-table.js';

const PAGE = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

t.test("docs/configuration.md's settings table is the one the declarations generate", (t) => {
  t.equal(withConfigTable(PAGE), PAGE, 'docs/configuration.md differs from the declarations: run npm run docs:config');
  t.end();
});

t.test('one row per variable a person sets, alternatives on one row', (t) => {
  const table = configTable();
  t.match(table, /^\| `PORT` \| `8484` \| port of every endpoint; not 8080, /m);
  t.match(table, /^\| `WEBHOOK_TOKEN` or `WEBHOOK_TOKEN_FILE` \| required, or `WEBHOOK_TOKEN_DIR` \| /m);
  t.match(table, /^\| `WEBHOOK_TOKEN_DIR` \| — \| a directory of HMAC keys, one file per namespace/m);
  t.match(table, /^\| `GITHUB_APP_PRIVATE_KEY` or `GITHUB_APP_PRIVATE_KEY_PATH` \| with `GITHUB_APP_ID` \| /m);
  t.match(table, /^\| `ENVIRONMENT` \| — \| /m);
  t.match(table, /^`explain` reads only `GITHUB_API_URL`, .*`LOG_LEVEL`\.$/m);
  t.notMatch(table, /`WEBHOOK_TOKEN`.*explain reads/, 'explain needs no webhook key');
  t.throws(() => withConfigTable('# no markers'), /config-table:start/);
  t.end();
});
