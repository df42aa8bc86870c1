import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

/** What `createAdminServer` depends on. */
export interface AdminServerDeps {
  metrics: Registry;
  /** Ready when the consumer runs and its dependencies answer. */
  isReady(): boolean;
}

/**
 * The service's two HTTP listeners. The public one serves the webhook sink alone (it may face
 * the internet through an ingress); the admin one serves health, readiness and metrics and
 * stays inside the cluster. fastify: body limits, timeouts and JSON errors come built in.
 */
export function createAdminServer(deps: AdminServerDeps): FastifyInstance {
  // The operator console shares this listener: its forms (a redrive's selection) need more
  // than a probe does, and a redrive answers once its dry run has read its window.
  const app = Fastify({
    logger: false,
    bodyLimit: 64 * 1024,
    requestTimeout: 120_000,
    connectionTimeout: 10_000,
  });
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', async (_request, reply) => {
    const ready = deps.isReady();
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not ready' });
  });
  app.get('/metrics', async (_request, reply) => {
    return reply.header('content-type', deps.metrics.contentType).send(await deps.metrics.metrics());
  });
  return app;
}

/** The public listener; the webhook sink registers its routes on it. */
export function createPublicServer(
  options: { bodyLimitBytes?: number; onResponse?: (statusCode: number) => void } = {},
): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: options.bodyLimitBytes ?? 256 * 1024,
    requestTimeout: 10_000,
    connectionTimeout: 10_000,
  });
  const { onResponse } = options;
  if (onResponse)
    app.addHook('onResponse', (_request, reply, done) => {
      onResponse(reply.statusCode);
      done();
    });
  return app;
}

/** The port a listening server bound (the configured one when it cannot tell). */
export function boundPort(app: FastifyInstance, fallback: number): number {
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : fallback;
}
