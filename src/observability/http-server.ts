import Fastify, { type FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';

/**
 * The service's HTTP server: health, readiness and metrics; the webhook sink registers its
 * routes on the same instance. fastify: body limits, timeouts and JSON errors come built in.
 */
export interface HttpServerDeps {
  metrics: Registry;
  /** Ready when the consumer runs and its dependencies answer. */
  isReady(): boolean;
  bodyLimitBytes?: number;
}

export function createHttpServer(deps: HttpServerDeps): FastifyInstance {
  const app = Fastify({
    logger: false,
    bodyLimit: deps.bodyLimitBytes ?? 256 * 1024,
    requestTimeout: 10_000,
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
