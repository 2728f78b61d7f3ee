import t from 'tap';
import { parseChallenges, pickChallenge } from '../../src/oci/challenge.js';

t.test('parses challenges', (t) => {
  const cases: Array<[string, unknown[]]> = [
    [
      'Bearer realm="https://auth.docker.io/token",service="registry.docker.io",scope="repository:library/nginx:pull"',
      [{ scheme: 'bearer', realm: 'https://auth.docker.io/token', service: 'registry.docker.io', scope: 'repository:library/nginx:pull' }],
    ],
    ['bearer realm="https://ghcr.io/token"', [{ scheme: 'bearer', realm: 'https://ghcr.io/token' }]],
    ['Basic realm="basic-realm"', [{ scheme: 'basic', realm: 'basic-realm' }]],
    ['Basic', [{ scheme: 'basic' }]],
    ['BASIC Realm=Registry', [{ scheme: 'basic', realm: 'Registry' }]],
    [
      'Bearer realm = "https://x/t" , service="s", scope="repository:a/b:pull,push"',
      [{ scheme: 'bearer', realm: 'https://x/t', service: 's', scope: 'repository:a/b:pull,push' }],
    ],
    ['Bearer realm="a \\"quoted\\" realm"', [{ scheme: 'bearer', realm: 'a "quoted" realm' }]],
    [
      'Basic realm="r", Bearer realm="https://t/token",service="svc"',
      [
        { scheme: 'basic', realm: 'r' },
        { scheme: 'bearer', realm: 'https://t/token', service: 'svc' },
      ],
    ],
    ['Negotiate abc==, Basic realm="r"', [{ scheme: 'basic', realm: 'r' }]],
    ['Bearer service="no-realm"', []],
    ['Bearer realm=""', []],
    ['', []],
    ['Digest realm="x", nonce="y"', []],
  ];
  for (const [header, want] of cases) t.strictSame(parseChallenges(header), want, header);
  t.end();
});

t.test('prefers Bearer over Basic', (t) => {
  t.strictSame(pickChallenge('Basic realm="r", Bearer realm="https://t/token"'), { scheme: 'bearer', realm: 'https://t/token' });
  t.strictSame(pickChallenge('Basic realm="r"'), { scheme: 'basic', realm: 'r' });
  t.equal(pickChallenge(null), undefined);
  t.equal(pickChallenge('Digest realm="x"'), undefined);
  t.end();
});
