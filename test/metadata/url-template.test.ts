import t from 'tap';
import { expandUrl } from '../../src/metadata/url-template.js';

const vars = {
  sha: '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e',
  namespace: 'apps',
  name: 'podinfo',
  service: 'frontend',
  environment: 'production',
  cluster: 'prod-eu-1',
};

t.test('expandUrl expands', (t) => {
  const rows: Array<[string, string]> = [
    ['https://podinfo.example.com', 'https://podinfo.example.com'],
    ['https://{name}.{environment}.example.com/', 'https://podinfo.production.example.com/'],
    [
      'https://grafana.example.com/explore?cluster={cluster}&ns={namespace}&app={name}&svc={service}&sha={sha}&env={environment}',
      'https://grafana.example.com/explore?cluster=prod-eu-1&ns=apps&app=podinfo&svc=frontend&sha=07a684d59d1bc9a58e0c0d07ed480812b2b9a29e&env=production',
    ],
    ['https://x.example.com/{sha}/{sha}', `https://x.example.com/${vars.sha}/${vars.sha}`],
    ['https://logs.example.com:8443/{namespace}', 'https://logs.example.com:8443/apps'],
    ['https://x.example.com/{}', 'https://x.example.com/{}'],
    ['https://x.example.com/{not-a-key}', 'https://x.example.com/{not-a-key}'],
  ];
  for (const [template, want] of rows) t.same(expandUrl(template, vars), { url: want }, template);
  t.end();
});

t.test('expandUrl refuses', (t) => {
  const rows: Array<[string, RegExp]> = [
    ['https://x.example.com/{pod}', /names unknown \{pod\}/],
    ['https://x.example.com/{name}/{region}/{zone}', /names unknown \{region\}/],
    ['https://x.example.com/{Name}', /names unknown \{Name\}/],
    ['http://x.example.com/{name}', /"http:\/\/x.example.com\/podinfo" is not https/],
    ['ftp://x.example.com/', /is not https/],
    ['javascript:alert(1)', /is not https/],
    ['/logs/{name}', /"\/logs\/podinfo" is not an absolute URL/],
    ['logs.example.com/{name}', /is not an absolute URL/],
    ['', /is not an absolute URL/],
    ['https://', /is not an absolute URL/],
  ];
  for (const [template, reason] of rows) {
    const r = expandUrl(template, vars);
    t.ok('error' in r, `${JSON.stringify(template)}: refused`);
    if ('error' in r) t.match(r.error, reason, `${JSON.stringify(template)}: reason`);
  }
  t.end();
});

t.test('expandUrl with no variables', (t) => {
  t.same(expandUrl('https://x.example.com/a', {}), { url: 'https://x.example.com/a' });
  t.match(expandUrl('https://x.example.com/{sha}', {}), { error: /unknown \{sha\}/ });
  t.end();
});
