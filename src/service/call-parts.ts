import type { PausedPartition } from '../consumers/runtime.js';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { localFigures, type LocalFigures } from '../console/figures.js';
import { CircuitBreaker } from '../requests/circuit-breaker.js';
import { OPERATIONS, type Operation } from '../contract/operations.js';
import { createLimiters, type Limiters } from '../limits/index.js';
import type { ScheduleLimiter } from '../limits/types.js';
import { instrumentLimiters, watchBreaker, type InstrumentedLimiter } from './instrument.js';
import { createMetrics, type ServiceMetrics } from '../observability/metrics.js';
import { createVendorClient, type VendorClient } from '../vendor-api/client.js';
import type { Closers } from './closers.js';
import type { Infrastructure } from './infrastructure.js';
import { breakerSettings, vendorClientOptions } from './settings.js';

/** What a vendor call goes through: the client, the limiters, the breakers, and what counts them. */
export interface CallParts {
  vendor: VendorClient;
  limiters: Limiters;
  /** The limiters as the metrics see them (slot waits, calls started, 429 backoffs). */
  limiterOf: Record<Operation, InstrumentedLimiter>;
  /** The limiter a request's call runs under, also counted for the console. */
  countedLimiterFor: (operation: Operation) => ScheduleLimiter;
  breakerFor: (operation: Operation) => CircuitBreaker;
  figures: LocalFigures;
  /** The service's metrics, seen through the console's figures (they count dead letters). */
  metrics: ServiceMetrics;
}

export type PausedPartitions = () => PausedPartition[];

export function createCallParts(
  config: Config,
  deps: { logger: Logger; infra: Pick<Infrastructure, 'redis' | 'topics'>; paused: PausedPartitions },
  closers: Closers,
): CallParts {
  const vendor = createVendorClient(vendorClientOptions(config));
  closers.add('vendor client', () => vendor.close());
  const limiters = createLimiters({
    settings: config.limits,
    ...(deps.infra.redis ? { redis: deps.infra.redis } : {}),
    keyPrefix: `${config.TOPIC_PREFIX}:limits`,
    logger: deps.logger,
    lanes: { bulkMinShare: config.LANE_BULK_MIN_SHARE },
  });
  closers.add('limiters', () => limiters.close());
  const serviceMetrics = createMetrics();
  const limiterOf = instrumentLimiters((op) => limiters.get(op), serviceMetrics);
  const breakerFor = createBreakers(config, serviceMetrics);
  const figures = localFigures({
    replica: `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
    metrics: serviceMetrics,
    limits: config.limits,
    breakerFor,
    paused: deps.paused,
    requestTopic: (op, lane) => deps.infra.topics.request(op, lane),
    laneQueues: (op) => limiterOf[op].stats.lanes,
    now: () => Date.now(),
  });
  // The console's figures count each call its limiter starts.
  const counted = new Map(OPERATIONS.map((op) => [op, figures.counted(op, limiterOf[op])]));
  return {
    vendor,
    limiters,
    limiterOf,
    countedLimiterFor: (op) => counted.get(op) ?? limiterOf[op],
    breakerFor,
    figures,
    metrics: figures.metrics,
  };
}

/** One breaker per operation, its transitions counted. */
function createBreakers(config: Config, metrics: ServiceMetrics): (operation: Operation) => CircuitBreaker {
  const breakers = new Map(OPERATIONS.map((op) => [op, new CircuitBreaker(breakerSettings(config))]));
  const breakerFor = (op: Operation): CircuitBreaker => {
    const breaker = breakers.get(op);
    if (!breaker) throw new Error(`no breaker for ${op}`);
    return breaker;
  };
  for (const op of OPERATIONS) watchBreaker(op, breakerFor(op), metrics);
  return breakerFor;
}
