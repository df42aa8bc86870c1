import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Lane, Operation } from '../contract/operations.js';
import { watchConsumerLag, type LagWatchDeps } from './consumer-lag.js';
import { metricFactory, type MetricFactory } from './metric-factory.js';
import { threadPoolWait } from './threadpool-wait.js';
import { laneGauges, operationGauges, runtimeGauges, webhookGauges } from './metric-gauges.js';
import {
  type BreakerTransition,
  refusalRecorders,
  requestRecorders,
  transactionRecorders,
  vendorRecorders,
  webhookRecorders,
} from './metric-recorders.js';
import type { FramingMismatchKind } from '../producers/value-codec.js';
import type { NotStoredStore, RefusalReason, RefusedValueStore } from '../at-rest/refusals.js';

/**
 * Prometheus metrics of the service (prom-client, the de-facto Node client). Labels are
 * bounded: operation, lane, topic, partition, reason, kind, code, status, outcome and store only; never a request
 * id, a key, a tax id or a URL. Gauges of state held elsewhere (the runtime, the limiters,
 * the breakers, the pending searches) are read at scrape time from the sources attached.
 */
/** One lane's waiting calls, as a limiter reports them (structurally the limiter's own figures). */
export interface LaneFigures {
  /** Calls accepted and not yet holding a quota slot. */
  queued: number;
  /** Milliseconds the oldest of them has waited (0 when none). */
  oldestWaitMs: number;
}

export interface MetricSources {
  runtime?: { stats(): RuntimeFigures };
  limiters?: Record<
    Operation,
    {
      stats: { started: number; lateSlots: number; lanes?: Record<Lane, LaneFigures> };
      backoffActive(): boolean;
    }
  >;
  spendCaps?: Partial<Record<Operation, number | undefined>>;
  breakerState?: (operation: Operation) => BreakerPosition;
  pendingSearches?: () => Promise<number>;
}

/**
 * What the gauges read of the request runtime at scrape time: the runtime's stats fit it (the
 * service attaches them), and this module knows nothing of the runtime.
 */
export interface RuntimeFigures {
  inFlight: number;
  partitions: readonly { topic: string; partition: number; windowUsed: number }[];
  paused: readonly { topic: string; partition: number; reason: string }[];
  /** Partitions waiting for an earlier owner's hanging transaction. */
  hanging: readonly { topic: string; partition: number }[];
}

/** A circuit breaker's state, as its gauge shows it. */
export type BreakerPosition = 'closed' | 'half-open' | 'open';

export interface ServiceMetrics {
  readonly registry: Registry;
  outcome(operation: Operation, kind: 'result' | 'error', status: string): void;
  committed(count: number): void;
  /** Seconds from a request's Kafka timestamp to the commit of its outcome. */
  endToEnd(operation: Operation, seconds: number): void;
  rebalance(): void;
  attach(sources: MetricSources): void;
  vendorCall(operation: Operation, outcome: string, seconds: number): void;
  rateLimited(operation: Operation): void;
  retry(operation: Operation, reason: string): void;
  limiterWait(operation: Operation, seconds: number): void;
  callStarted(operation: Operation, lane?: Lane): void;
  breakerTransition(operation: Operation, kind: BreakerTransition): void;
  paidOutcomeReused(operation: Operation): void;
  framingMismatch(operation: Operation, kind: FramingMismatchKind): void;
  transaction(kind: 'committed' | 'aborted', seconds: number): void;
  producerFenced(): void;
  commitRefused(): void;
  transactionCallResumed(call: 'sendOffsets' | 'commit'): void;
  consumerLag(topic: string, partition: number, lag: number): void;
  webhookCall(code: number): void;
  vehicleSearchExpired(): void;
  /** A value read back from Redis and refused (at-rest/refusals.ts). */
  redisValueRefused(store: RefusedValueStore, reason: RefusalReason): void;
  /** A value left unwritten while a person it names was being erased (at-rest/refusals.ts). */
  redisValueNotStored(store: NotStoredStore): void;
}

/**
 * How often the event-loop delay histogram (nodejs_eventloop_lag_*) samples the loop.
 * prom-client's 10 ms default wakes an idle service 100 times a second, most of its idle CPU
 * (issue 12's idle goal); at 100 ms a lag of a few ms is still seen, in fewer samples.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

export function createMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  const make = metricFactory(registry);
  let sources: MetricSources = {};
  const recorders = {
    ...requestRecorders(make),
    ...vendorRecorders(make),
    ...transactionRecorders(make),
    ...webhookRecorders(make),
    ...refusalRecorders(make),
  };
  runtimeGauges(make, () => sources);
  operationGauges(make, () => sources);
  laneGauges(make, () => sources);
  webhookGauges(make, () => sources);
  memoryGauges(make);
  threadPoolGauge(make);
  return {
    registry,
    attach(more) {
      sources = { ...sources, ...more };
    },
    ...recorders,
  };
}

/**
 * What prom-client's defaults leave out: Buffers and ArrayBuffers (the Kafka client's message
 * keys and values, HTTP bodies) are outside the JS heap and only partly in
 * `nodejs_external_memory_bytes`. librdkafka's own queues are native memory, in neither: only
 * the process's resident memory counts them.
 */
function memoryGauges(make: MetricFactory): void {
  make.gauge(
    'nodejs_array_buffers_bytes',
    'Memory held by ArrayBuffers and Buffers, outside the JS heap',
    [],
    (g) => {
      g.set(process.memoryUsage().arrayBuffers);
    },
  );
}

/**
 * How long a task waits for a thread of libuv's pool, asked at each scrape (threadpool-wait.ts):
 * near 0 normally, and growing while the Kafka client's blocking calls hold every thread.
 */
function threadPoolGauge(make: MetricFactory): void {
  const wait = threadPoolWait();
  make.gauge(
    'verification_threadpool_wait_seconds',
    "How long a task given to libuv's thread pool at the scrape waited to run (while one has not run: how long it has waited so far)",
    [],
    async (g) => {
      g.set(await wait());
    },
  );
}

/**
 * Hands the metrics the state they read at scrape time and starts the consumer lag watch;
 * returns what stops it.
 */
export function attachServiceMetrics(
  metrics: ServiceMetrics,
  sources: MetricSources & { lag: Omit<LagWatchDeps, 'report'> },
): () => Promise<void> {
  const { lag, ...rest } = sources;
  metrics.attach(rest);
  const watch = watchConsumerLag({
    ...lag,
    report: (topic, partition, value) => {
      metrics.consumerLag(topic, partition, value);
    },
  });
  return () => {
    watch.stop();
    return Promise.resolve();
  };
}
