/** What loadConfig refuses an environment for: its problems, or none when it is accepted. */
import { ConfigError, loadConfig } from '../../src/config/load-config.js';

export function configProblems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
