import t from 'tap';
import { lookupReference } from '../../src/images/image-facts.js';
import { runningImage } from '../../src/images/running-image.js';
import type { PodView } from '../../src/kube/kube-types.js';
import { parseImageId } from '../../src/oci/image-id.js';

const D1 = `sha256:${'1'.repeat(64)}`;
const D2 = `sha256:${'2'.repeat(64)}`;
const D3 = `sha256:${'3'.repeat(64)}`;

t.test('imageID forms', (t) => {
  const cases: Array<[string | undefined, ReturnType<typeof parseImageId>]> = [
    [`docker-pullable://ghcr.io/acme/app@${D1}`, { digest: D1, registry: 'ghcr.io', repository: 'acme/app' }],
    [`ghcr.io/acme/app@${D1}`, { digest: D1, registry: 'ghcr.io', repository: 'acme/app' }],
    [`docker.io/library/nginx@${D2}`, { digest: D2, registry: 'docker.io', repository: 'library/nginx' }],
    [`nginx@${D2}`, { digest: D2, registry: 'docker.io', repository: 'library/nginx' }],
    [`127.0.0.1:5000/team/app@${D3}`, { digest: D3, registry: '127.0.0.1:5000', repository: 'team/app' }],
    [D1, { digest: D1 }],
    [`docker://${D1}`, { digest: D1 }],
    ['', undefined],
    [undefined, undefined],
    ['ghcr.io/acme/app:1.0', undefined],
    ['sha256:short', undefined],
    ['docker-pullable://not a reference@sha256:x', undefined],
  ];
  for (const [id, want] of cases) t.strictSame(parseImageId(id), want, String(id));
  t.end();
});

const pod = (name: string, createdAt: number, image: string, imageID: string, extra: Partial<PodView> = {}): PodView => ({
  name,
  createdAt,
  labels: {},
  terminating: false,
  containers: [
    { name: 'app', image },
    { name: 'sidecar', image: 'envoy:1' },
  ],
  containerStatuses: [
    { name: 'sidecar', imageID: `docker.io/library/envoy@${D3}` },
    { name: 'app', imageID },
  ],
  ...extra,
});

t.test('running image: current template, newest pod, not terminating, started', (t) => {
  const app = { name: 'app', image: 'ghcr.io/acme/app:2' };
  const pods = [
    pod('old', 100, 'ghcr.io/acme/app:1', `ghcr.io/acme/app@${D1}`),
    pod('new-a', 200, 'ghcr.io/acme/app:2', `ghcr.io/acme/app@${D2}`),
    pod('new-b', 300, 'ghcr.io/acme/app:2', ''),
    pod('dying', 400, 'ghcr.io/acme/app:2', `ghcr.io/acme/app@${D3}`, { terminating: true }),
  ];
  t.strictSame(runningImage(pods, app), { digest: D2, registry: 'ghcr.io', repository: 'acme/app' });
  t.strictSame(runningImage(pods, { name: 'sidecar', image: 'envoy:1' })?.digest, D3, 'matched by container name');
  t.equal(runningImage(pods.slice(0, 1), app), undefined, 'only pods of another template: nothing');
  t.equal(runningImage([], app), undefined);
  const tie = [pod('b', 5, app.image, `ghcr.io/acme/app@${D1}`), pod('c', 5, app.image, `ghcr.io/acme/app@${D2}`)];
  t.equal(runningImage(tie, app)?.digest, D2, 'same creation second: the later name, deterministically');
  t.end();
});

t.test('lookup reference: the running digest when the repository matches', (t) => {
  t.equal(lookupReference('ghcr.io/acme/app:2', { digest: D2, registry: 'ghcr.io', repository: 'acme/app' }), `ghcr.io/acme/app@${D2}`);
  t.equal(
    lookupReference('nginx:1.27', { digest: D2, registry: 'docker.io', repository: 'library/nginx' }),
    `docker.io/library/nginx@${D2}`,
  );
  t.equal(
    lookupReference('ghcr.io/acme/app:2', { digest: D2, registry: 'mirror.local', repository: 'acme/app' }),
    'ghcr.io/acme/app:2',
    'a mirror: the template reference',
  );
  t.equal(lookupReference('ghcr.io/acme/app:2', { digest: D1 }), 'ghcr.io/acme/app:2', 'a bare image ID is no registry digest');
  t.equal(lookupReference('ghcr.io/acme/app:2', undefined), 'ghcr.io/acme/app:2');
  t.end();
});
