import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Runtime } from '../consumers/runtime.js';
import { OPERATIONS } from '../contract/operations.js';
import { attachServiceMetrics } from '../observability/metrics.js';
import type { CallParts } from './call-parts.js';
import type { Infrastructure } from './infrastructure.js';

/**
 * Hands the metrics the runtime's state and starts the consumer lag watch, and pauses an
 * operation's topics while its spend cap is reached. Returns what stops the watch.
 */
export function watchRuntime(
  config: Config,
  logger: Logger,
  deps: { infra: Infrastructure; calls: CallParts; runtime: Runtime },
): () => Promise<void> {
  const { calls, runtime } = deps;
  const stopMetrics = attachServiceMetrics(calls.metrics, {
    runtime,
    limiters: calls.limiterOf,
    spendCaps: Object.fromEntries(OPERATIONS.map((op) => [op, config.limits[op].spendCapPerHour])),
    breakerState: (op) => calls.breakerFor(op).state,
    lag: {
      admin: deps.infra.groupOffsets.latest,
      groupId: config.KAFKA_GROUP_ID,
      topics: deps.infra.topics.requestTopics(),
      intervalMs: config.CONSUMER_LAG_INTERVAL_MS,
      logger,
    },
  });
  calls.limiters.on('spend-cap', (operation, resumeAt) => {
    logger.warn(
      { operation, resumeAt: new Date(resumeAt).toISOString() },
      'spend cap reached; pausing the operation',
    );
    runtime.pauseOperationUntil(operation, resumeAt);
  });
  return stopMetrics;
}
