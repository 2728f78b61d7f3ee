import t from 'tap';
import { identityKey } from '../../src/lifecycle/identity.js';

const SHA = '07a684d59d1bc9a58e0c0d07ed480812b2b9a29e';

t.test('identityKey', (t) => {
  const base = { forge: 'github', owner: 'stefanprodan', repo: 'podinfo', environment: 'production', sha: SHA, deploymentName: 'podinfo' };
  t.equal(identityKey(base), `github|stefanprodan|podinfo|production|${SHA}|podinfo`, 'the forge leads');
  t.equal(
    identityKey({ ...base, owner: 'StefanProdan', repo: 'PodInfo' }),
    identityKey(base),
    'owner and repo are case-insensitive on GitHub',
  );
  const differs: Array<[string, Partial<typeof base>]> = [
    ['environment', { environment: 'staging' }],
    ['sha', { sha: '2222222222222222222222222222222222222222' }],
    ['deploymentName', { deploymentName: 'podinfo-frontend' }],
    ['repo', { repo: 'podinfo2' }],
  ];
  for (const [name, change] of differs) t.not(identityKey({ ...base, ...change }), identityKey(base), `${name} is part of the key`);
  const whole = { ...base, cluster: 'prod-eu-1', payload: {} };
  t.equal(identityKey(whole), identityKey(base), 'works on a whole target');
  t.equal(
    identityKey({ ...base, forge: 'forgejo' }),
    `forgejo|stefanprodan|podinfo|production|${SHA}|podinfo`,
    'the same repository on Forgejo is another target',
  );
  t.end();
});
