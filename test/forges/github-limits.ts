/** GitHub's secondary limits as the bridge parses them: the default GITHUB_WRITE_BUDGET, for tests that build a GitHub forge. */
import { DEFAULT_WRITE_BUDGET } from '../../src/forges/github/github-settings.js';
import { parseBudget, type BudgetWindow } from '../../src/forges/github/write-budget.js';

function defaultBudget(): BudgetWindow[] {
  const parsed = parseBudget(DEFAULT_WRITE_BUDGET);
  if ('problem' in parsed) throw new Error(`DEFAULT_WRITE_BUDGET ${parsed.problem}`);
  return parsed;
}

export const GITHUB_LIMITS: BudgetWindow[] = defaultBudget();
