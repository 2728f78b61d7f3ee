import t from 'tap';
import type { K8sObject } from '../../src/kube/kube-types.js';
import { routeUrl, type DiscoveredUrl } from '../../src/metadata/route-url.js';

const POD = { namespace: 'apps', labels: { app: 'web', tier: 'front' } };

const service = (name: string, selector: Record<string, string> | undefined, namespace = 'apps'): K8sObject => ({
  kind: 'Service',
  metadata: { name, namespace },
  spec: { ...(selector ? { selector } : {}), ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
});

const backend = (name: string, port: Record<string, unknown> = { number: 80 }) => ({ service: { name, port } });

const ingress = (spec: Record<string, unknown>, name = 'web', namespace = 'apps'): K8sObject => ({
  kind: 'Ingress',
  metadata: { name, namespace },
  spec,
});

const rule = (host: string | undefined, ...paths: Array<[string | undefined, string]>) => ({
  ...(host === undefined ? {} : { host }),
  http: { paths: paths.map(([path, svc]) => ({ ...(path === undefined ? {} : { path }), pathType: 'Prefix', backend: backend(svc) })) },
});

const httpRoute = (spec: Record<string, unknown>, name = 'web'): K8sObject => ({
  kind: 'HTTPRoute',
  metadata: { name, namespace: 'apps' },
  spec: { parentRefs: [{ name: 'public', namespace: 'gateways', sectionName: 'https' }], ...spec },
});

const WEB = service('web', { app: 'web' });
const OTHER = service('api', { app: 'api' });

const rows: Array<[string, K8sObject[], DiscoveredUrl | undefined]> = [
  [
    'Ingress with tls for its host: https, the rule path',
    [
      WEB,
      ingress({
        tls: [{ hosts: ['pr-42.preview.example.com'], secretName: 'tls' }],
        rules: [rule('pr-42.preview.example.com', ['/shop', 'web'])],
      }),
    ],
    { url: 'https://pr-42.preview.example.com/shop', from: 'Ingress apps/web' },
  ],
  [
    'Ingress without tls: http',
    [WEB, ingress({ rules: [rule('web.example.com', ['/', 'web'])] })],
    { url: 'http://web.example.com/', from: 'Ingress apps/web' },
  ],
  [
    'tls for another host only: http',
    [WEB, ingress({ tls: [{ hosts: ['other.example.com'] }], rules: [rule('web.example.com', ['/', 'web'])] })],
    { url: 'http://web.example.com/', from: 'Ingress apps/web' },
  ],
  [
    'a wildcard tls entry covers a host one label below it',
    [WEB, ingress({ tls: [{ hosts: ['*.preview.example.com'] }], rules: [rule('pr-7.preview.example.com', [undefined, 'web'])] })],
    { url: 'https://pr-7.preview.example.com/', from: 'Ingress apps/web' },
  ],
  [
    'several hosts: the first that reaches the workload',
    [
      WEB,
      OTHER,
      ingress({
        rules: [rule('api.example.com', ['/', 'api']), rule('a.example.com', ['/a', 'web']), rule('b.example.com', ['/b', 'web'])],
      }),
    ],
    { url: 'http://a.example.com/a', from: 'Ingress apps/web' },
  ],
  [
    'several paths in one rule: the one whose backend selects the pods',
    [WEB, OTHER, ingress({ rules: [rule('x.example.com', ['/api', 'api'], ['/app', 'web'])] })],
    { url: 'http://x.example.com/app', from: 'Ingress apps/web' },
  ],
  ['a Service that selects other pods: none', [OTHER, ingress({ rules: [rule('x.example.com', ['/', 'api'])] })], undefined],
  [
    'a Service selecting a subset of the pod labels matches; one asking for more does not',
    [
      service('web', { app: 'web', tier: 'back' }),
      service('all', { app: 'web' }),
      ingress({ rules: [rule('x.example.com', ['/', 'web'], ['/all', 'all'])] }),
    ],
    { url: 'http://x.example.com/all', from: 'Ingress apps/web' },
  ],
  [
    'a Service without selector selects nothing',
    [service('web', undefined), ingress({ rules: [rule('x.example.com', ['/', 'web'])] })],
    undefined,
  ],
  [
    'the Service in another namespace is not the pods',
    [service('web', { app: 'web' }, 'other'), ingress({ rules: [rule('x.example.com', ['/', 'web'])] })],
    undefined,
  ],
  [
    'named ports are irrelevant',
    [
      WEB,
      ingress({
        rules: [{ host: 'x.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: backend('web', { name: 'http' }) }] } }],
      }),
    ],
    { url: 'http://x.example.com/', from: 'Ingress apps/web' },
  ],
  ['wildcard hosts are skipped', [WEB, ingress({ rules: [rule('*.example.com', ['/', 'web'])] })], undefined],
  [
    'a wildcard host is skipped for the next concrete one',
    [WEB, ingress({ rules: [rule('*.example.com', ['/', 'web']), rule('web.example.com', ['/w', 'web'])] })],
    { url: 'http://web.example.com/w', from: 'Ingress apps/web' },
  ],
  ['no hosts: none', [WEB, ingress({ rules: [rule(undefined, ['/', 'web'])] })], undefined],
  ['only a default backend, no rules: none', [WEB, ingress({ defaultBackend: backend('web') })], undefined],
  [
    'a host rule without paths goes to the default backend',
    [WEB, ingress({ defaultBackend: backend('web'), rules: [{ host: 'd.example.com' }] })],
    { url: 'http://d.example.com/', from: 'Ingress apps/web' },
  ],
  [
    'a regular-expression path stands for the root',
    [WEB, ingress({ rules: [rule('x.example.com', ['/api(/|$)(.*)', 'web'])] })],
    { url: 'http://x.example.com/', from: 'Ingress apps/web' },
  ],
  [
    'first routing object in inventory order wins',
    [
      WEB,
      ingress({ rules: [rule('one.example.com', ['/', 'web'])] }, 'one'),
      ingress({ rules: [rule('two.example.com', ['/', 'web'])] }, 'two'),
    ],
    { url: 'http://one.example.com/', from: 'Ingress apps/one' },
  ],
  [
    'HTTPRoute with parentRefs, hostnames and a backendRef to the Service: https',
    [
      WEB,
      httpRoute({
        hostnames: ['pr-42.preview.example.com'],
        rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/app' } }], backendRefs: [{ name: 'web', port: 8080 }] }],
      }),
    ],
    { url: 'https://pr-42.preview.example.com/app', from: 'HTTPRoute apps/web' },
  ],
  [
    'HTTPRoute without matches: the root; the first concrete hostname',
    [
      WEB,
      httpRoute({
        hostnames: ['*.example.com', 'h.example.com', 'i.example.com'],
        rules: [{ backendRefs: [{ kind: 'Service', group: '', name: 'web' }] }],
      }),
    ],
    { url: 'https://h.example.com/', from: 'HTTPRoute apps/web' },
  ],
  [
    'HTTPRoute: several rules, the one to the workload',
    [
      WEB,
      OTHER,
      httpRoute({
        hostnames: ['h.example.com'],
        rules: [
          { matches: [{ path: { value: '/api' } }], backendRefs: [{ name: 'api' }] },
          { matches: [{ path: { value: '/web' } }], backendRefs: [{ name: 'web' }] },
        ],
      }),
    ],
    { url: 'https://h.example.com/web', from: 'HTTPRoute apps/web' },
  ],
  [
    'HTTPRoute backendRef to another namespace: none',
    [WEB, httpRoute({ hostnames: ['h.example.com'], rules: [{ backendRefs: [{ name: 'web', namespace: 'other' }] }] })],
    undefined,
  ],
  [
    'HTTPRoute backendRef to another kind: none',
    [WEB, httpRoute({ hostnames: ['h.example.com'], rules: [{ backendRefs: [{ group: 'example.io', kind: 'Backend', name: 'web' }] }] })],
    undefined,
  ],
  ['HTTPRoute without hostnames: none', [WEB, httpRoute({ rules: [{ backendRefs: [{ name: 'web' }] }] })], undefined],
  ['no routing objects: none', [WEB], undefined],
  ['nothing at all: none', [], undefined],
];

t.test('routeUrl', (t) => {
  for (const [name, objects, want] of rows) t.same(routeUrl(objects, POD, 'https'), want, name);
  t.end();
});

t.test('routeUrl: ENVIRONMENT_URL_SCHEME sets the HTTPRoute scheme, not the Ingress one', (t) => {
  const objects = [WEB, httpRoute({ hostnames: ['h.example.com'], rules: [{ backendRefs: [{ name: 'web' }] }] })];
  t.same(routeUrl(objects, POD, 'http'), { url: 'http://h.example.com/', from: 'HTTPRoute apps/web' });
  const tls = [WEB, ingress({ tls: [{ hosts: ['x.example.com'] }], rules: [rule('x.example.com', ['/', 'web'])] })];
  t.same(routeUrl(tls, POD, 'http'), { url: 'https://x.example.com/', from: 'Ingress apps/web' });
  t.end();
});
