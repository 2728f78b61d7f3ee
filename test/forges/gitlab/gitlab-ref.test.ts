import t from 'tap';
import { chooseRef, FLUX_BRANCH_ANNOTATION, REF_ANNOTATION, type RefInputs } from '../../../src/forges/gitlab/gitlab-ref.js';

const none = { workloadAnnotations: {}, fluxAnnotations: {} };

t.test('ref: annotation, else the Flux branch, else GitLab (default branch first); tag only for a tag', (t) => {
  const rows: [string, RefInputs, unknown][] = [
    [
      'workload annotation wins',
      { workloadAnnotations: { [REF_ANNOTATION]: 'release' }, fluxAnnotations: { [FLUX_BRANCH_ANNOTATION]: 'feat' } },
      { ref: 'release', tag: false, from: 'annotation' },
    ],
    [
      'refs/heads/ is dropped',
      { ...none, workloadAnnotations: { [REF_ANNOTATION]: 'refs/heads/main' } },
      { ref: 'main', tag: false, from: 'annotation' },
    ],
    [
      'refs/tags/ is a tag',
      { ...none, workloadAnnotations: { [REF_ANNOTATION]: 'refs/tags/v1.2.0' } },
      { ref: 'v1.2.0', tag: true, from: 'annotation' },
    ],
    [
      'a blank annotation counts as none',
      { workloadAnnotations: { [REF_ANNOTATION]: ' ' }, fluxAnnotations: { [FLUX_BRANCH_ANNOTATION]: 'feature/x' } },
      { ref: 'feature/x', tag: false, from: 'flux' },
    ],
    ['not asked yet: look up', none, { lookup: true }],
    [
      'default branch preferred',
      { ...none, branches: ['feature/x', 'main', 'a'], defaultBranch: 'main' },
      { ref: 'main', tag: false, from: 'gitlab' },
    ],
    [
      'else the first by name, stable',
      { ...none, branches: ['zeta', 'feature/x'], defaultBranch: 'main' },
      { ref: 'feature/x', tag: false, from: 'gitlab' },
    ],
    ['no default known', { ...none, branches: ['b', 'a'], defaultBranch: null }, { ref: 'a', tag: false, from: 'gitlab' }],
  ];
  for (const [name, inputs, want] of rows) t.same(chooseRef(inputs), want, name);
  t.match(chooseRef({ ...none, branches: [], defaultBranch: 'main' }), {
    problem: /no branch holds the commit: set the github-deployment-bridge.io\/ref/,
  });
  t.end();
});
