import t from 'tap';
import { parseSourceArg } from '../../src/cli/explain.js';

t.test('parseSourceArg: the kind as kubectl and flux take it, any case; namespace and name as given', (t) => {
  const ks = (namespace: string, name: string) => ({ kind: 'Kustomization', namespace, name });
  const hr = (namespace: string, name: string) => ({ kind: 'HelmRelease', namespace, name });
  const rows: Array<[string | undefined, ReturnType<typeof ks> | undefined]> = [
    ['Kustomization/flux-system/apps', ks('flux-system', 'apps')],
    ['kustomization/flux-system/apps', ks('flux-system', 'apps')],
    ['KUSTOMIZATION/flux-system/apps', ks('flux-system', 'apps')],
    ['kustomizations/flux-system/apps', ks('flux-system', 'apps')],
    ['ks/flux-system/apps', ks('flux-system', 'apps')],
    ['KS/flux-system/apps', ks('flux-system', 'apps')],
    ['HelmRelease/podinfo/podinfo', hr('podinfo', 'podinfo')],
    ['helmrelease/podinfo/podinfo', hr('podinfo', 'podinfo')],
    ['helmreleases/podinfo/podinfo', hr('podinfo', 'podinfo')],
    ['hr/podinfo/podinfo', hr('podinfo', 'podinfo')],
    ['hr/Podinfo/Web', hr('Podinfo', 'Web')],
    ['GitRepository/flux-system/apps', undefined],
    ['k/flux-system/apps', undefined],
    ['constructor/flux-system/apps', undefined],
    ['ks/flux-system', undefined],
    ['ks//apps', undefined],
    ['ks/flux-system/', undefined],
    ['ks/flux-system/apps/extra', undefined],
    ['/flux-system/apps', undefined],
    ['', undefined],
    [undefined, undefined],
  ];
  for (const [arg, want] of rows) t.same(parseSourceArg(arg), want, String(arg));
  t.end();
});
