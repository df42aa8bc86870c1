import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Runtime } from './consumers/runtime.js';
import { createTracing } from './observability/tracing.js';
import { createCallParts } from './service/call-parts.js';
import { Closers } from './service/closers.js';
import { connectInfrastructure } from './service/infrastructure.js';
import { startListeners, type BoundPorts } from './service/listeners.js';
import { createRuntime } from './service/request-runtime.js';
import { watchRuntime } from './service/runtime-watch.js';
import { outputSettings, tracingSettings } from './service/settings.js';
import type { Service, ServiceOptions } from './service/types.js';
import { createTracker } from './service/vehicle-search.js';

export type { Service, ServiceOptions } from './service/types.js';

/**
 * The composition root: config → clients → runtime → HTTP. Nothing else builds singletons.
 * Each part is added to the closers as it is built, so they close in the reverse order (the
 * listeners first, the tracing last). SIGTERM (cli.ts) calls stop(), which drains in-flight
 * work within SHUTDOWN_TIMEOUT_MS.
 */
export async function startService(
  config: Config,
  logger: Logger,
  options: ServiceOptions = {},
): Promise<Service> {
  const closers = new Closers(logger);
  try {
    const tracing = await createTracing(tracingSettings(config, options.spanExporter));
    if (tracing) closers.add('tracing', () => tracing.shutdown());
    const infra = await connectInfrastructure(config, logger, closers);
    // The console's figures read the runtime's paused partitions, once it exists.
    const runtimeRef: { current?: Runtime } = {};
    const paused = () => runtimeRef.current?.pausedPartitions() ?? [];
    const calls = createCallParts(config, { logger, infra, paused }, closers);
    const output = outputSettings(config, infra.codec, infra.topics);
    const tracker = createTracker(config, logger, { infra, calls, output });
    closers.add('vehicle-search tracker', () => tracker.stop());
    const onFatal = options.onFatal;
    const runtime = createRuntime(config, logger, { infra, calls, tracker, output, tracing, onFatal });
    runtimeRef.current = runtime;
    // Also closed if start-up fails past this point (its producer may be connected by then).
    closers.add('runtime', () => runtime.stop());
    closers.add('runtime metrics', watchRuntime(config, logger, { infra, calls, runtime }));
    let started = false;
    const parts = { infra, calls, tracker, started: () => started };
    const ports = await startListeners(config, logger, parts, closers);
    // After listen (the webhook URL may need the bound port), before the first request.
    await tracker.start();
    await runtime.start();
    started = true;
    logStarted(config, logger, { ...ports, redis: infra.redis !== undefined });
    return {
      ...ports,
      async stop() {
        started = false;
        // The runtime first, while the listeners still answer; the rest even if it fails.
        try {
          await runtime.stop();
        } finally {
          await closers.closeAll();
        }
      },
    };
  } catch (error) {
    await closers.closeAll();
    throw error;
  }
}

function logStarted(config: Config, logger: Logger, facts: BoundPorts & { redis: boolean }): void {
  const registry = config.SCHEMA_REGISTRY_URL !== undefined;
  logger.info({ ...facts, prefix: config.TOPIC_PREFIX, registry }, 'service started');
}
