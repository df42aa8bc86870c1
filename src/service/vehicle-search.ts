import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { reportNotStored, reportRefusals } from '../at-rest/refusals.js';
import { instrumentPublisher } from './instrument.js';
import type { OutputDeps } from '../producers/output-records.js';
import {
  createEventPublisher,
  createVehicleSearchTracker,
  memoryPendingStore,
  redisPendingStore,
  requestCommitCheck,
  type VehicleSearchTracker,
} from '../webhooks/index.js';
import type { CallParts } from './call-parts.js';
import type { Infrastructure } from './infrastructure.js';
import { trackerSettings } from './settings.js';

/**
 * Pending searches in Redis when there is one (replicas share them, restarts keep them), else
 * in memory (one instance; a restart loses the searches in flight).
 */
export function createTracker(
  config: Config,
  logger: Logger,
  deps: {
    infra: Pick<Infrastructure, 'kafka' | 'groupOffsets' | 'redis'>;
    calls: CallParts;
    output: OutputDeps;
  },
): VehicleSearchTracker {
  const { kafka, groupOffsets, redis } = deps.infra;
  const { metrics } = deps.calls;
  const store = redis
    ? redisPendingStore(
        redis,
        `${config.TOPIC_PREFIX}:vehicle-search`,
        config.atRest && {
          atRest: config.atRest,
          indexTtlMs: config.DEDUPE_WINDOW_SECONDS * 1000,
          onRefused: reportRefusals('pending-search', logger, (store, reason) => {
            metrics.redisValueRefused(store, reason);
          }),
          onNotStored: reportNotStored('pending-search', logger, (store) => {
            metrics.redisValueNotStored(store);
          }),
        },
      )
    : memoryPendingStore();
  metrics.attach({ pendingSearches: () => store.count() });
  return createVehicleSearchTracker({
    vendor: deps.calls.vendor,
    store,
    publisher: instrumentPublisher(createEventPublisher(kafka, deps.output), metrics),
    // Polls count against the vendor's rate like any vehicle-async call.
    limiter: deps.calls.limiterOf['vehicle-async'],
    logger,
    // Final events wait for the commit of the request that created the search, which also
    // commits its `pending` event (the runtime writes both in one transaction).
    isRequestCommitted: requestCommitCheck(groupOffsets.latest, config.KAFKA_GROUP_ID),
    settings: trackerSettings(config),
  });
}
