/** The CI dependency audit's verdict on what `npm audit --json` prints (shapes of npm 10/11's report). */
import t from 'tap';
import { auditVerdict } from '../../scripts/dependency-audit.js';

const report = (vulnerabilities: Record<string, { severity: string }>) =>
  JSON.stringify({
    auditReportVersion: 2,
    vulnerabilities,
    metadata: {
      vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, total: Object.keys(vulnerabilities).length },
      dependencies: { prod: 120, dev: 300, optional: 2, peer: 0, peerOptional: 0, total: 421 },
    },
  });

t.test('advisories: high and critical fail, lower ones do not', (t) => {
  t.same(auditVerdict(report({})), { kind: 'clean', dependencies: 120 });
  t.same(auditVerdict(report({ debug: { severity: 'low' }, qs: { severity: 'moderate' } })), { kind: 'clean', dependencies: 120 });
  t.same(auditVerdict(report({ undici: { severity: 'high' }, ws: { severity: 'critical' }, qs: { severity: 'low' } })), {
    kind: 'vulnerable',
    findings: ['undici (high)', 'ws (critical)'],
  });
  t.end();
});

t.test('no audit to be had: skipped, saying why', (t) => {
  // What a GET-only registry mirror answers (seen where this was written).
  const mirror = JSON.stringify({
    message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk',
    statusCode: 405,
    body: '',
    error: { summary: '', detail: '' },
  });
  t.same(auditVerdict(mirror), {
    kind: 'skipped',
    reason:
      "the registry's audit endpoint gave no audit: 405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk",
  });
  const offline = JSON.stringify({
    error: { code: 'ENOTFOUND', summary: 'request to https://registry.npmjs.org failed, reason: getaddrinfo ENOTFOUND' },
  });
  t.match(auditVerdict(offline), { kind: 'skipped', reason: /ENOTFOUND/ });
  t.match(auditVerdict(''), { kind: 'skipped', reason: /printed no JSON \(nothing\)/ });
  t.end();
});
