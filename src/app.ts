import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { statusRoutes, type StatusDeps } from './http/status-routes.js';
import { WEBHOOK_BODY_LIMIT_BYTES, webhookRoutes, type WebhookDeps } from './http/webhook.js';

export type AppDeps = WebhookDeps & StatusDeps & { log: Logger };

/** Builds the HTTP application from its dependencies; no I/O of its own, so tests use `inject()`. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({ loggerInstance: deps.log as FastifyBaseLogger, bodyLimit: WEBHOOK_BODY_LIMIT_BYTES, disableRequestLogging: true });
  await app.register(rateLimit, { global: false });
  await app.register(async (scope) => webhookRoutes(scope, deps));
  await app.register(async (scope) => statusRoutes(scope, deps));
  return app;
}
