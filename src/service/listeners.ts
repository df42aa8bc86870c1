import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { boundPort, createAdminServer, createPublicServer } from '../observability/http-server.js';
import { checkTimeoutMs, dependencyChecks, Readiness } from '../observability/readiness.js';
import { redisReady } from '../observability/redis-client.js';
import type { VehicleSearchTracker } from '../webhooks/index.js';
import type { CallParts } from './call-parts.js';
import type { Closers } from './closers.js';
import type { Infrastructure } from './infrastructure.js';

/** The ports actually bound (HTTP_PORT or ADMIN_PORT 0 picks a free one). */
export interface BoundPorts {
  httpPort: number;
  adminPort: number;
}

/**
 * The admin listener (health, metrics, console) and the public one (the webhook sink alone).
 * Ready once `started` says so, the broker and the registry answer their background checks,
 * and Redis, when there is one, is connected.
 */
export async function startListeners(
  config: Config,
  logger: Logger,
  deps: {
    infra: Infrastructure;
    calls: CallParts;
    tracker: VehicleSearchTracker;
    started: () => boolean;
  },
  closers: Closers,
): Promise<BoundPorts> {
  const { kafka, redis, registryCheck, groupOffsets } = deps.infra;
  const { metrics, figures } = deps.calls;
  const interval = config.DEPENDENCY_CHECK_INTERVAL_MS;
  const readiness = new Readiness(
    dependencyChecks({
      metadata: groupOffsets.latest,
      topic: deps.infra.topics.errors,
      registry: registryCheck,
    }),
    { intervalMs: interval, timeoutMs: checkTimeoutMs(interval) },
    logger,
  );
  readiness.start();
  closers.add('readiness checks', () => {
    readiness.stop();
    return Promise.resolve();
  });
  const adminHttp = createAdminServer({
    metrics: metrics.registry,
    isReady: () => deps.started() && readiness.isReady() && (redis === undefined || redisReady(redis)),
  });
  if (config.console) {
    // Imported only when enabled (off by default): the console's modules (views, audit
    // clients) took about 9 MiB of resident memory in a replica that never served a page.
    const { attachConsole } = await import('../console/server.js');
    const closeConsole = await attachConsole(adminHttp, config, config.console, {
      kafka,
      groupOffsets: groupOffsets.latest,
      redis,
      logger,
      figures: () => figures.snapshot(),
      countRefused: (store, reason) => {
        metrics.redisValueRefused(store, reason);
      },
    });
    closers.add('console', closeConsole);
  }
  await adminHttp.listen({ host: config.ADMIN_HOST, port: config.ADMIN_PORT });
  closers.add('admin listener', () => adminHttp.close());
  const http = createPublicServer({
    onResponse: (code) => {
      metrics.webhookCall(code);
    },
  });
  deps.tracker.registerRoutes(http);
  await http.listen({ host: config.HTTP_HOST, port: config.HTTP_PORT });
  closers.add('public listener', () => http.close());
  return { httpPort: boundPort(http, config.HTTP_PORT), adminPort: boundPort(adminHttp, config.ADMIN_PORT) };
}
