/**
 * The built-in request rates of the HTTP routes, per client address per minute: what `http/` limits to and what
 * `config/` shows as each setting's default (WEBHOOK_RATE_PER_MINUTE, STATUS_RATE_PER_MINUTE).
 */

/**
 * Webhook requests allowed per client address per minute before 429, for verified events and for failed
 * verifications each; an address past its failed verifications is answered 429 before its body is read or digested.
 */
export const WEBHOOK_RATE_PER_MINUTE = 1_200;

/**
 * Requests per client address per minute to `/readyz`, and to `/state` with the status page, before 429 (the same
 * limiter as the webhook's). Each runs the storage probe or reads every table: a loop of them must not take the
 * bridge's time. Probes ask every few seconds; people and scripts far less.
 */
export const STATUS_RATE_PER_MINUTE = 300;
