import type { FastifyInstance, FastifyRequest, onRequestHookHandler, onResponseHookHandler, preValidationHookHandler } from 'fastify';
import type { Logger } from 'pino';
import { parseFluxEvent, reportableKind } from '../flux/flux-event.js';
import type { Metrics } from '../common/metrics.js';
import type { QueueStore } from '../store/queue-store.js';
import { WebhookKeyring, claimedNamespace, type KeyCheck } from './webhook-keys.js';
import { SignatureFailures } from './signature-failures.js';
import { monotonicNow } from '../common/timers.js';
import { errorMessage } from '../common/errors.js';
import { WEBHOOK_RATE_PER_MINUTE } from '../common/request-rates.js';
import { EnqueueBatcher } from '../store/enqueue-batch.js';
import type { StorageWrites } from '../store/storage-health.js';

/** Largest webhook body accepted; Flux events are a few hundred bytes to a few KiB. */
export const WEBHOOK_BODY_LIMIT_BYTES = 64 * 1024;
/** `gdb_events_total` results of webhook requests refused before the handler ran; other codes count as `http_<code>`. */
const REFUSED_BEFORE_HANDLER: Record<number, string> = { 413: 'too_large', 415: 'unsupported_media_type', 429: 'rate_limited' };

export interface WebhookDeps {
  /** WEBHOOK_TOKEN alone (tests, benchmarks); `webhookKeys` when there are per-namespace keys. */
  webhookKey?: Buffer;
  /** Every key: the shared one and WEBHOOK_TOKEN_DIR's per namespace. */
  webhookKeys?: Pick<WebhookKeyring, 'verify'>;
  queue: QueueStore;
  metrics: Metrics;
  log: Logger;
  now: () => number;
  /** New work was recorded: wake the worker. */
  onEnqueued: () => void;
  isShuttingDown: () => boolean;
  /** `WATCH_NAMESPACES`: events for Flux objects elsewhere are accepted and ignored (empty: all). */
  watchNamespaces?: readonly string[];
  /** Requests per client address per minute; default WEBHOOK_RATE_PER_MINUTE (benchmarks raise it). */
  webhookRatePerMinute?: number;
  /** Hears of intake writes: `failed` gives the reason a storage failure is answered 503 with. */
  storage?: StorageWrites;
}

/**
 * `POST /webhook`: verify the HMAC over the raw bytes, then parse and validate the Flux event, then
 * record its source durably before answering 202. Never waits for Kubernetes or a forge.
 */
export function webhookRoutes(app: FastifyInstance, deps: WebhookDeps): void {
  // Only JSON, as raw bytes: the HMAC is over the exact body. Anything else is 415.
  app.removeAllContentTypeParsers();
  const batch = new EnqueueBatcher(deps.queue);
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT_BYTES }, (_req, body, done) =>
    done(null, body),
  );

  // The series its alert watches exists from the start, so the first bad signature shows as an increase.
  deps.metrics.events.inc({ kind: 'unknown', result: 'bad_signature' }, 0);
  // Every answer counts by code here. In gdb_events_total, requests the handler answered count themselves;
  // the ones Fastify or the rate limiter refused count here.
  const handled = new WeakSet<object>();
  const countAnswer: onResponseHookHandler = (req, reply, done) => {
    deps.metrics.webhookResponses.inc({ code: String(reply.statusCode) });
    if (!handled.has(req))
      deps.metrics.events.inc({ kind: 'unknown', result: REFUSED_BEFORE_HANDLER[reply.statusCode] ?? `http_${reply.statusCode}` });
    done();
  };
  // The signature is checked before the rate limit, so requests that fail it and verified events are
  // counted apart: a sender of bad requests from Flux's address cannot spend the budget of Flux's events.
  // Failed verifications are counted per address before any digest: past the budget, 429 before the body is read.
  const checks = new WeakMap<object, { check: KeyCheck; event: unknown }>();
  const keys = deps.webhookKeys ?? new WebhookKeyring({ ...(deps.webhookKey ? { shared: deps.webhookKey } : {}), now: deps.now });
  const perMinute = deps.webhookRatePerMinute ?? WEBHOOK_RATE_PER_MINUTE;
  const failures = new SignatureFailures({ max: perMinute, windowMs: 60_000, now: monotonicNow });
  const refuseSpent: onRequestHookHandler = (req, reply, done) => {
    const waitMs = failures.refusedFor(req.ip);
    if (waitMs === undefined) {
      done();
      return;
    }
    void reply
      .code(429)
      .header('retry-after', String(Math.ceil(waitMs / 1000)))
      .send({ error: `too many failed signatures from this address: ${perMinute} a minute; retry in ${Math.ceil(waitMs / 1000)} s` });
  };
  const verify: preValidationHookHandler = (req, _reply, done) => {
    const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const sig = req.headers['x-signature'];
    // Parsed once, here (the body is at most WEBHOOK_BODY_LIMIT_BYTES): its namespace picks the one key to try.
    let event: unknown;
    try {
      event = JSON.parse(raw.toString('utf8'));
    } catch {
      event = undefined;
    }
    const check = keys.verify(raw, Array.isArray(sig) ? sig[0] : sig, claimedNamespace(event));
    if (!check.ok) failures.fail(req.ip);
    checks.set(req, { check, event });
    done();
  };
  const rateLimit = {
    hook: 'preHandler',
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: (req: FastifyRequest) => `verified ${req.ip}`,
    // Failed verifications have their budget above, spent before any digest.
    allowList: (req: FastifyRequest) => checks.get(req)?.check.ok !== true,
  } as const;
  app.post(
    '/webhook',
    { onRequest: refuseSpent, preValidation: verify, config: { rateLimit }, onResponse: countAnswer },
    async (req, reply) => {
      handled.add(req);
      const reject = (code: number, kind: string, result: string, error: string) => {
        deps.metrics.events.inc({ kind, result });
        deps.log.warn({ result, reason: error, remote: req.ip }, 'webhook rejected');
        return reply.code(code).send({ error });
      };
      if (deps.isShuttingDown()) return reject(503, 'unknown', 'shutting_down', 'shutting down: retry later');
      const seen = checks.get(req);
      const check = seen?.check ?? { ok: false, reason: 'signature not checked' };
      if (!check.ok) return reject(401, 'unknown', 'bad_signature', check.reason);
      if (seen?.event === undefined) return reject(400, 'unknown', 'bad_json', 'body is not valid JSON');
      const parsed = parseFluxEvent(seen.event);
      if (!parsed.ok) return reject(400, 'unknown', 'invalid_event', `not a Flux event: ${parsed.error}`);
      const { involvedObject: io } = parsed.event;
      const kind = reportableKind(io.kind);
      if (!kind) {
        deps.metrics.events.inc({ kind: 'other', result: 'ignored' });
        return reply.code(202).send({ status: 'ignored', reason: `${io.kind} events are not reported` });
      }
      const watched = deps.watchNamespaces ?? [];
      if (watched.length > 0 && !watched.includes(io.namespace)) {
        deps.metrics.events.inc({ kind, result: 'ignored' });
        return reply.code(202).send({ status: 'ignored', reason: `namespace ${io.namespace} is not in WATCH_NAMESPACES` });
      }
      const now = deps.now();
      try {
        await batch.enqueue({ kind, namespace: io.namespace, name: io.name }, now, now);
      } catch (err) {
        deps.metrics.events.inc({ kind, result: 'store_failed' });
        const reason = deps.storage?.failed('record a webhook event', err) ?? errorMessage(err);
        deps.log.error({ err: errorMessage(err), reason }, 'could not record the event durably');
        return reply.code(503).send({ error: `cannot record the event now: ${reason}; retry later` });
      }
      deps.storage?.succeeded();
      deps.metrics.events.inc({ kind, result: 'accepted' });
      deps.log.debug({ via: 'event', fluxObject: `${kind}/${io.namespace}/${io.name}`, reason: parsed.event.reason }, 'event queued');
      deps.onEnqueued();
      return reply.code(202).send({ status: 'queued' });
    },
  );
}
