import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { StatusDeps } from './state-snapshot.js';
import { statusRoutes } from './status-routes.js';
import { WEBHOOK_BODY_LIMIT_BYTES, webhookRoutes, type WebhookDeps } from './webhook.js';

export type AppDeps = WebhookDeps & StatusDeps & { log: Logger };

/**
 * Longest a client may take to send a whole request, headers and body: a slow or stalled sender is
 * answered 408 and cut instead of holding a connection (and its buffers) forever. Flux posts a few KiB.
 */
export const REQUEST_TIMEOUT_MS = 10_000;

/**
 * No route has a schema: each checks what it reads in its handler. Fastify's default compilers would load ajv and
 * fast-json-stringify's compiler (about 7 MiB of the process, BENCHMARKS.md §5) all the same; these refuse a schema
 * at registration, so one added later fails every test that builds the app instead of costing that quietly.
 */
const noSchemas = () => () => {
  throw new Error('the bridge checks requests in its handlers: no route schema (one would load ajv, about 7 MiB)');
};

/** Builds the HTTP application from its dependencies; no I/O of its own, so tests use `inject()`. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  // Widened to Fastify's logger type so the instance is a plain FastifyInstance, not one typed by pino's logger.
  const loggerInstance: FastifyBaseLogger = deps.log;
  const app: FastifyInstance = Fastify({
    loggerInstance,
    bodyLimit: WEBHOOK_BODY_LIMIT_BYTES,
    requestTimeout: REQUEST_TIMEOUT_MS,
    // Node checks those deadlines every connectionsCheckingInterval (30 s by default); headers get the same bound.
    http: { headersTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1_000 },
    // Per-request lines would log every Flux event; the routes log what matters once.
    logController: new LogController({ disableRequestLogging: true }),
    schemaController: { compilersFactory: { buildValidator: noSchemas, buildSerializer: noSchemas } },
  });
  await app.register(rateLimit, { global: false });
  // Each in its own scope: the webhook replaces the content-type parsers of its routes only.
  await app.register((scope, _opts, done) => {
    webhookRoutes(scope, deps);
    done();
  });
  await app.register((scope, _opts, done) => {
    statusRoutes(scope, deps);
    done();
  });
  return app;
}
