import t from 'tap';
import {
  DEFAULT_CONTEXT_TEMPLATE,
  MAX_CONTEXT_CHARS,
  parseContextTemplate,
  statusContext,
  type ContextInput,
  type ContextTemplate,
} from '../../../src/forges/forgejo/status-context.js';

function parsed(template: string): ContextTemplate {
  const p = parseContextTemplate(template);
  if ('problem' in p) throw new Error(p.problem);
  return p;
}

const DEFAULT = parsed(DEFAULT_CONTEXT_TEMPLATE);

t.test('the default context: environment, the deployment name when annotated, the cluster', (t) => {
  const table: Array<[ContextInput, string]> = [
    [{ environment: 'preview-pr-42', cluster: 'eu-1' }, 'deploy/preview-pr-42 (eu-1)'],
    [{ environment: 'production', deploymentName: 'shop-api', cluster: 'eu-1' }, 'deploy/production/shop-api (eu-1)'],
    [{ environment: 'production', deploymentName: ' ', cluster: 'us-2' }, 'deploy/production (us-2)'],
    [{ environment: ' staging ', deploymentName: ' api ', cluster: ' eu-1 ' }, 'deploy/staging/api (eu-1)'],
    [{ environment: 'team/preview', cluster: 'eu-1' }, 'deploy/team%2Fpreview (eu-1)'],
    [{ environment: 'qa', deploymentName: 'web app', cluster: 'eu 1' }, 'deploy/qa/web%20app (eu%201)'],
    [{ environment: '100%', cluster: 'k(3)' }, 'deploy/100%25 (k(3))'],
    [{ environment: 'a\nb', cluster: 'c' }, 'deploy/a%0Ab (c)'],
    [{ environment: 'прод', deploymentName: '🚀', cluster: 'ü' }, 'deploy/прод/🚀 (ü)'],
  ];
  for (const [input, context] of table) t.equal(statusContext(DEFAULT, input), context, JSON.stringify(input));
  t.throws(() => statusContext(DEFAULT, { environment: ' ', cluster: 'eu-1' }), /environment and a cluster/);
  t.throws(() => statusContext(DEFAULT, { environment: 'qa', cluster: '' }), /environment and a cluster/);
  t.end();
});

/** Values chosen to collide if separators were not encoded. */
const TRICKY = ['a', 'b', 'a/b', 'b/c', 'a b', 'a (b', 'b (c)', 'b (c', '(', ')', 'x/', '/x', '%2F', 'a%2Fb', 'a@b', 'b@c', 'c', '@'];

t.test('no two (environment, name, cluster) share a context, for the default and custom templates', (t) => {
  const templates = [DEFAULT_CONTEXT_TEMPLATE, '{cluster}@{environment}/{deploymentName}', '{deploymentName}/{environment}@{cluster}'];
  for (const template of templates) {
    const tpl = parsed(template);
    const seen = new Map<string, string>();
    let collisions = 0;
    for (const environment of TRICKY)
      for (const deploymentName of ['', ...TRICKY])
        for (const cluster of TRICKY) {
          const who = JSON.stringify([environment, deploymentName, cluster]);
          const context = statusContext(tpl, { environment, deploymentName, cluster });
          if (seen.has(context)) collisions++;
          seen.set(context, who);
        }
    t.equal(collisions, 0, `${template}: ${seen.size} distinct contexts`);
  }
  t.end();
});

t.test('templates: placeholders anywhere, an unset name leaves with its separator', (t) => {
  const a = parsed('{cluster}:{environment}/{deploymentName}');
  t.equal(statusContext(a, { environment: 'staging', cluster: 'eu-1' }), 'eu-1:staging');
  t.equal(statusContext(a, { environment: 'staging', deploymentName: 'api', cluster: 'eu-1' }), 'eu-1:staging/api');
  const b = parsed('  {deploymentName}/{environment}@{cluster} ');
  t.equal(statusContext(b, { environment: 'staging', cluster: 'eu-1' }), 'staging@eu-1', 'the separator after it, when it leads');
  t.equal(statusContext(b, { environment: 'staging', deploymentName: 'api', cluster: 'eu-1' }), 'api/staging@eu-1');
  t.equal(statusContext(b, { environment: 'a:b', cluster: 'eu-1' }), 'a:b@eu-1', 'only separators the template uses are encoded');
  t.end();
});

t.test('templates are refused with a reason', (t) => {
  const table: Array<[string, RegExp]> = [
    ['', /must contain \{environment\} exactly once/],
    ['deploy/{environment}', /must contain \{deploymentName\} exactly once \(it is left out when unset\)/],
    ['deploy/{environment}/{deploymentName}', /must contain \{cluster\} exactly once/],
    ['deploy/{environment}/{environment}/{deploymentName} ({cluster})', /must contain \{environment\} exactly once/],
    ['deploy/{env}/{deploymentName} ({cluster})', /unknown placeholder \{env\}/],
    ['deploy/{environment}{cluster}/{deploymentName}', /must part \{environment\} from the next placeholder/],
    ['{environment}/x{deploymentName}x ({cluster})', /separator right before or after \{deploymentName\}/],
    ['{environment}/{deploymentName}x{cluster}', /must part \{deploymentName\} from the next placeholder/],
    ['100%/{environment}/{deploymentName} ({cluster})', /must not contain "%"/],
    ['deploy}/{environment}/{deploymentName} ({cluster})', /brace outside a placeholder/],
  ];
  for (const [template, problem] of table) t.match(parseContextTemplate(template), { problem }, JSON.stringify(template));
  t.end();
});

t.test('a context longer than MAX_CONTEXT_CHARS keeps its head and a hash of the whole', (t) => {
  const long = (tail: string) => statusContext(DEFAULT, { environment: `${'é'.repeat(300)}${tail}`, cluster: 'eu-1' });
  const one = long('1');
  const two = long('2');
  t.equal(Array.from(one).length, MAX_CONTEXT_CHARS);
  t.match(one, /^deploy\/é+~[0-9a-f]{8}$/);
  t.not(one, two, 'still unique');
  t.equal(long('1'), one, 'and stable');
  t.end();
});
