import t from 'tap';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';

const GITLAB = {
  WEBHOOK_TOKEN: 'a-webhook-key-of-at-least-32-bytes-long',
  CLUSTER_NAME: 'prod-eu-1',
  GITLAB_URL: 'https://gitlab.example.com',
  GITLAB_TOKEN: 'glpat-x',
};

t.test('GITLAB_AGENT_ID: optional, a positive whole number', (t) => {
  t.equal(loadConfig(GITLAB).gitlabAgentId, undefined, 'unset: no agent link');
  t.equal(loadConfig({ ...GITLAB, GITLAB_AGENT_ID: '42' }).gitlabAgentId, 42);
  for (const bad of ['0', '-3', 'agent-1', '1.5']) {
    let problems: string[] = [];
    try {
      loadConfig({ ...GITLAB, GITLAB_AGENT_ID: bad });
    } catch (err) {
      if (err instanceof ConfigError) problems = err.problems;
    }
    t.match(problems, [/^GITLAB_AGENT_ID=.* must be the numeric id of a GitLab agent/], bad);
  }
  t.end();
});
