import t from 'tap';
import { RegistryError } from '../../src/common/errors.js';
import { formatReference, manifestReference, parseImageReference } from '../../src/oci/reference.js';

const D = `sha256:${'a'.repeat(64)}`;

const valid: Array<[string, { registry: string; apiHost: string; repository: string; tag?: string; digest?: string }]> = [
  ['nginx', { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'library/nginx', tag: 'latest' }],
  ['nginx:1.27', { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'library/nginx', tag: '1.27' }],
  ['library/nginx', { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'library/nginx', tag: 'latest' }],
  ['docker.io/x/y', { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'x/y', tag: 'latest' }],
  ['docker.io/nginx', { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'library/nginx', tag: 'latest' }],
  ['index.docker.io/x/y:2', { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'x/y', tag: '2' }],
  ['ghcr.io/org/app:tag', { registry: 'ghcr.io', apiHost: 'ghcr.io', repository: 'org/app', tag: 'tag' }],
  ['GHCR.io/org/app', { registry: 'ghcr.io', apiHost: 'ghcr.io', repository: 'org/app', tag: 'latest' }],
  ['host:5000/a/b/c:tag', { registry: 'host:5000', apiHost: 'host:5000', repository: 'a/b/c', tag: 'tag' }],
  ['host:5000/app', { registry: 'host:5000', apiHost: 'host:5000', repository: 'app', tag: 'latest' }],
  ['localhost/app', { registry: 'localhost', apiHost: 'localhost', repository: 'app', tag: 'latest' }],
  ['127.0.0.1:5000/team/app:v1.2.3', { registry: '127.0.0.1:5000', apiHost: '127.0.0.1:5000', repository: 'team/app', tag: 'v1.2.3' }],
  ['[::1]:5000/app:x', { registry: '[::1]:5000', apiHost: '[::1]:5000', repository: 'app', tag: 'x' }],
  ['my-org/my_app.web__x', { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'my-org/my_app.web__x', tag: 'latest' }],
  [`app@${D}`, { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'library/app', digest: D }],
  [`app:tag@${D}`, { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'library/app', tag: 'tag', digest: D }],
  [`ghcr.io/o/a:v1@${D}`, { registry: 'ghcr.io', apiHost: 'ghcr.io', repository: 'o/a', tag: 'v1', digest: D }],
  ['  nginx:1  ', { registry: 'docker.io', apiHost: 'registry-1.docker.io', repository: 'library/nginx', tag: '1' }],
];

t.test('parses every reference form', (t) => {
  for (const [input, want] of valid) t.strictSame(parseImageReference(input), want, input);
  t.end();
});

const invalid = [
  '',
  'UPPER',
  'nginx:',
  'nginx:-bad',
  'a//b',
  'app@sha256:short',
  `app@sha256:${'A'.repeat(64)}`,
  'bad_host:x:y/app',
  'app/',
  '/app',
  `a@b@${D}`,
];

t.test('rejects malformed references as invalid', (t) => {
  for (const input of invalid) {
    t.throws(() => parseImageReference(input), RegistryError, input);
    try {
      parseImageReference(input);
    } catch (err) {
      t.equal((err as RegistryError).failure, 'invalid', input);
      t.match((err as Error).message, /invalid image reference/, input);
    }
  }
  t.end();
});

t.test('the digest wins over the tag for the manifest request', (t) => {
  t.equal(manifestReference(parseImageReference(`app:tag@${D}`)), D);
  t.equal(manifestReference(parseImageReference('app:tag')), 'tag');
  t.equal(manifestReference(parseImageReference('app')), 'latest');
  t.end();
});

t.test('formats canonical names', (t) => {
  t.equal(formatReference(parseImageReference('nginx')), 'docker.io/library/nginx:latest');
  t.equal(formatReference(parseImageReference('index.docker.io/library/nginx:1')), 'docker.io/library/nginx:1');
  t.equal(formatReference(parseImageReference(`ghcr.io/o/a:v1@${D}`)), `ghcr.io/o/a@${D}`);
  t.end();
});
