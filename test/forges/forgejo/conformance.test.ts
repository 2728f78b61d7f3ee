/** Forgejo against the forge conformance suite (test/forges/conformance.ts), on the Forgejo simulator. */
import t from 'tap';
import { forgejoForge, type ForgejoSettings } from '../../../src/forges/forgejo/forgejo-forge.js';
import { parseForgejoUrl } from '../../../src/forges/forgejo/forgejo-url.js';
import { DEFAULT_CONTEXT_TEMPLATE, parseContextTemplate } from '../../../src/forges/forgejo/status-context.js';
import { retryAfterFault, startForgejoSimulator } from '../../harness/forgejo-sim.js';
import { forgeConformance } from '../conformance.js';
import { OWNER, REPO, SHA, type ConformanceDriver } from '../conformance-rig.js';

const TOKEN = 'forgejo_conformance';
/** A commit status in neutral words: `pending` is in progress, a success saying "Deployment gone" ended it. */
const neutral = (s: { state?: string; status?: string; description: string }): string => {
  const state = s.state ?? s.status;
  return state === 'pending' ? 'in_progress' : state === 'success' && s.description.startsWith('Deployment gone') ? 'gone' : String(state);
};
/** The environment a context of the default template names (`deploy/staging (eu-1)`; the suite's have no `/` nor space). */
const environmentOf = (context: string): string => /^deploy\/([^/ ]+)/.exec(context)?.[1] ?? context;

export const forgejoDriver: ConformanceDriver<ForgejoSettings> = {
  driver: forgejoForge,
  async start(o = {}) {
    const sim = await startForgejoSimulator({ tokens: [TOKEN], repos: [`${OWNER}/${REPO}`], ...o });
    const url = parseForgejoUrl(sim.url);
    const template = parseContextTemplate(DEFAULT_CONTEXT_TEMPLATE);
    if ('problem' in url || 'problem' in template) throw new Error('bad Forgejo settings');
    return {
      sim,
      origin: new URL(sim.url).origin,
      settings: { forgejoUrl: url, forgejoStatusContext: template, forgejoToken: { kind: 'inline', value: TOKEN } },
      asksToWrite: (r) => r.method === 'POST',
      wordOf: (w) => `status ${neutral(w.body as { state: string; description: string })}`,
      shown() {
        const latest = new Map(sim.statuses(OWNER, REPO, SHA).map((s) => [s.context, s]));
        return [...latest.values()].map((s) => `${environmentOf(s.context)} ${SHA.slice(0, 7)} ${neutral(s)}`);
      },
      pullRequest: (n) => sim.pullRequest(OWNER, REPO, n, { head: SHA }),
      comments: (n) => sim.comments(OWNER, REPO, n).map((c) => c.body),
    };
  },
  rateLimited: (seconds) => retryAfterFault(seconds),
  // One status per phase on the commit's context; a workload gone gets one last status, in any environment.
  expected: {
    rollout: ['status in_progress', 'status success'],
    retire: ['status gone'],
    previewRollout: ['status in_progress', 'status success'],
    previewRetire: ['status gone'],
  },
};

forgeConformance(t, forgejoDriver);
