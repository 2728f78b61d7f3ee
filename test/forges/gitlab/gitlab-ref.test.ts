import t from 'tap';
import { chooseRef, type RefInputs } from '../../../src/forges/gitlab/gitlab-ref.js';

t.test("ref: the target's own, else GitLab (default branch first); tag only for a tag", (t) => {
  const rows: [string, RefInputs, unknown][] = [
    [
      "the target's ref wins over GitLab's branches",
      { target: { ref: 'release', tag: false, from: 'annotation' }, branches: ['main'], defaultBranch: 'main' },
      { ref: 'release', tag: false, from: 'annotation' },
    ],
    ['a tag stays a tag', { target: { ref: 'v1.2.0', tag: true, from: 'annotation' } }, { ref: 'v1.2.0', tag: true, from: 'annotation' }],
    [
      "the Flux object's branch",
      { target: { ref: 'feature/x', tag: false, from: 'flux' } },
      { ref: 'feature/x', tag: false, from: 'flux' },
    ],
    ['not asked yet: look up', {}, { lookup: true }],
    [
      'default branch preferred',
      { branches: ['feature/x', 'main', 'a'], defaultBranch: 'main' },
      { ref: 'main', tag: false, from: 'gitlab' },
    ],
    [
      'else the first by name, stable',
      { branches: ['zeta', 'feature/x'], defaultBranch: 'main' },
      { ref: 'feature/x', tag: false, from: 'gitlab' },
    ],
    ['no default known', { branches: ['b', 'a'], defaultBranch: null }, { ref: 'a', tag: false, from: 'gitlab' }],
  ];
  for (const [name, inputs, want] of rows) t.same(chooseRef(inputs), want, name);
  t.match(chooseRef({ branches: [], defaultBranch: 'main' }), {
    problem: /no branch holds the commit: set the github-deployment-bridge.io\/ref/,
  });
  t.end();
});
