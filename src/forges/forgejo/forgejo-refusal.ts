/**
 * Sorts a Forgejo failure (as every forge sorts its own): undefined when retrying soon may help
 * (5xx, network, timeouts, 401, 429/503 with Retry-After), else a refusal with what a person should
 * do. 404 and 403 block the repository; 422 and other 4xx the one status context. Pure.
 */
import { refusalKeys, type Refusal, type RefusalTarget } from '../../lifecycle/refusal.js';
import { refusalFor } from '../refusal-guard.js';
import { ForgeError, isForgeRetryable } from '../../common/errors.js';

export function forgejoRefusalOf(err: unknown, t: RefusalTarget, now: number): Refusal | undefined {
  if (!(err instanceof ForgeError) || isForgeRetryable(err) || err.status === undefined) return undefined;
  const status = err.status;
  const said = err.forgeMessage ?? err.message;
  const where = `${t.owner}/${t.repo}`;
  const keys = refusalKeys({ ...t, forge: 'forgejo' });
  const out = refusalFor('forgejo', status, now);
  if (status === 404)
    return out(
      keys.repo,
      'forgejo_not_found',
      `${where} not found on Forgejo, or FORGEJO_TOKEN's user cannot see it: give that user write access to the repository`,
    );
  if (status === 403)
    return out(
      keys.repo,
      'forgejo_forbidden',
      `Forgejo refused access to ${where} (403 ${said}): FORGEJO_TOKEN needs scope write:repository and its user write access to the repository`,
    );
  if (status === 422)
    return out(keys.deployment, 'forgejo_invalid', `Forgejo refused the status of ${t.sha.slice(0, 7)} on ${where} (422 ${said})`);
  return out(keys.deployment, 'forgejo_rejected', `Forgejo refused ${err.operation ?? 'a request'} for ${where} (${status} ${said})`);
}
