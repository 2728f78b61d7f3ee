import { REPORTING_SETTINGS, SETTINGS } from './settings.js';
import type { Row } from '../common/settings-schema.js';

const START = '<!-- config-table:start -->';
const END = '<!-- config-table:end -->';

const names = (rows: readonly Row[]): string => rows.map((r) => r.names.map((n) => `\`${n}\``).join(' or ')).join(', ');

/** docs/configuration.md's settings table, generated from the declarations in settings.ts. */
export function configTable(): string {
  const rows = Object.values(SETTINGS).flatMap((s) => s.rows);
  return [
    '<!-- generated from src/config/settings.ts by `npm run docs:config`: edit the declarations, not this table -->',
    '',
    '| name | default | meaning |',
    '|---|---|---|',
    ...rows.map((r) => `| ${names([r])} | ${r.shown} | ${r.doc.replaceAll('|', '\\|')} |`),
    '',
    `\`explain\` reads only ${names(Object.values(REPORTING_SETTINGS).flatMap((s) => s.rows))}.`,
    '',
  ].join('\n');
}

/** `page` with the text between the config-table markers replaced by the generated table. */
export function withConfigTable(page: string): string {
  const start = page.indexOf(START);
  const end = page.indexOf(END);
  if (start < 0 || end < start) throw new Error(`docs/configuration.md has no ${START} … ${END} section`);
  return `${page.slice(0, start + START.length)}\n${configTable()}\n${page.slice(end)}`;
}
