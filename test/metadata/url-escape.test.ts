import t from 'tap';
import { expandUrl } from '../../src/metadata/url-template.js';
import { escapeTemplateValues } from '../../src/metadata/url-escape.js';

const vars = { name: 'web', namespace: 'apps', source: 'apps/web', kind: 'Kustomization', environment: 'pr 42&x=1' };

t.test('escapeTemplateValues', (t) => {
  t.same(
    escapeTemplateValues(vars, true),
    {
      name: 'web',
      namespace: 'apps',
      source: 'apps%2Fweb',
      kind: 'Kustomization',
      environment: 'pr%2042%26x%3D1',
    },
    'percent-encodes every value',
  );
  t.same(escapeTemplateValues(vars, false), vars, 'unchanged when off');
  t.not(escapeTemplateValues(vars, false), vars, 'always a new object');
  t.same(escapeTemplateValues({ q: 'é/ü' }, true), { q: '%C3%A9%2F%C3%BC' }, 'UTF-8');
  t.end();
});

t.test('an escaped value stays one query value', (t) => {
  const template = 'https://grafana.example.com/explore?env={environment}&ns={namespace}';
  t.same(expandUrl(template, escapeTemplateValues(vars, true)), { url: 'https://grafana.example.com/explore?env=pr%2042%26x%3D1&ns=apps' });
  const url = new URL((expandUrl(template, escapeTemplateValues(vars, true)) as { url: string }).url);
  t.equal(url.searchParams.get('env'), 'pr 42&x=1', 'round-trips');
  t.equal(url.searchParams.get('x'), null, 'no injected parameter');
  t.end();
});
