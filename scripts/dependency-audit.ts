/**
 * `npm run audit:deps` (and .ci/run): the npm registry's advisories for the production dependencies. A high or
 * critical advisory fails (exit 1). When the audit endpoint gives no audit at all (no network, or a registry mirror
 * that serves only GET, as some CI proxies do), the audit is skipped with one line saying why (exit 0): CI then
 * proves nothing about advisories, and says so rather than failing every run for a reason outside the code.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

export type AuditVerdict =
  { kind: 'clean'; dependencies: number } | { kind: 'vulnerable'; findings: string[] } | { kind: 'skipped'; reason: string };

interface AuditJson {
  metadata?: { vulnerabilities?: Record<string, number>; dependencies?: { prod?: number; total?: number } };
  vulnerabilities?: Record<string, { severity?: string; via?: unknown[] }>;
  message?: string;
  statusCode?: number;
  error?: { code?: string; summary?: string };
}

const BLOCKING = new Set(['high', 'critical']);

/** What `npm audit --json` printed comes to. Pure. */
export function auditVerdict(output: string): AuditVerdict {
  let json: AuditJson;
  try {
    json = JSON.parse(output) as AuditJson;
  } catch {
    return { kind: 'skipped', reason: `npm audit printed no JSON (${output.trim().slice(0, 120) || 'nothing'})` };
  }
  if (json.metadata?.vulnerabilities === undefined) {
    const why = [json.error?.summary, json.message, json.error?.code].find((w) => w !== undefined && w !== '') ?? 'no audit in the answer';
    return { kind: 'skipped', reason: `the registry's audit endpoint gave no audit: ${why.split('\n')[0] ?? why}` };
  }
  const findings = Object.entries(json.vulnerabilities ?? {})
    .filter(([, v]) => BLOCKING.has(v.severity ?? ''))
    .map(([name, v]) => `${name} (${v.severity ?? '?'})`);
  if (findings.length > 0) return { kind: 'vulnerable', findings };
  return { kind: 'clean', dependencies: json.metadata.dependencies?.prod ?? json.metadata.dependencies?.total ?? 0 };
}

function main(): void {
  let output: string;
  try {
    output = execFileSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (err) {
    // npm exits 1 on findings and on errors alike; what it printed says which.
    const stdout = (err as { stdout?: unknown }).stdout;
    output = typeof stdout === 'string' ? stdout : '';
  }
  const v = auditVerdict(output);
  if (v.kind === 'vulnerable') {
    process.stderr.write(`dependency audit: high or critical advisories: ${v.findings.join(', ')}\n`);
    process.exit(1);
  }
  process.stdout.write(
    v.kind === 'clean'
      ? `dependency audit: no high or critical advisory in ${v.dependencies} production dependencies\n`
      : `dependency audit SKIPPED: ${v.reason}; advisories were not checked\n`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
