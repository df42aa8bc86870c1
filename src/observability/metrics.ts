import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { OPERATIONS, type Operation } from '../contract/operations.js';
import { watchConsumerLag, type LagWatchDeps } from './consumer-lag.js';
import type { RuntimeMetrics, RuntimeStats } from '../consumers/runtime.js';
import type { BreakerState } from '../consumers/circuit-breaker.js';

/**
 * Prometheus metrics of the service (prom-client, the de-facto Node client). Labels are
 * bounded: operation, topic, partition, reason, kind, code and outcome only; never a request
 * id, a key, a tax id or a URL. Gauges of state held elsewhere (the runtime, the limiters,
 * the breakers, the pending searches) are read at scrape time from the sources attached.
 */
export interface MetricSources {
  runtime?: { stats(): RuntimeStats };
  limiters?: Record<Operation, { stats: { started: number }; backoffActive(): boolean }>;
  spendCaps?: Partial<Record<Operation, number | undefined>>;
  breakerState?: (operation: Operation) => BreakerState;
  pendingSearches?: () => Promise<number>;
}

export interface ServiceMetrics extends RuntimeMetrics {
  readonly registry: Registry;
  attach(sources: MetricSources): void;
  vendorCall(operation: Operation, outcome: string, seconds: number): void;
  rateLimited(operation: Operation): void;
  retry(operation: Operation, reason: string): void;
  limiterWait(operation: Operation, seconds: number): void;
  callStarted(operation: Operation): void;
  breakerTransition(operation: Operation, kind: 'open' | 'close'): void;
  paidOutcomeReused(operation: Operation): void;
  transaction(kind: 'committed' | 'aborted', seconds: number): void;
  producerFenced(): void;
  consumerLag(topic: string, partition: number, lag: number): void;
  webhookCall(code: number): void;
  vehicleSearchExpired(): void;
}

const BREAKER_VALUE: Record<BreakerState, number> = { closed: 0, 'half-open': 1, open: 2 };
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function createMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  let sources: MetricSources = {};
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers });
  const histogram = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Histogram<L>({ name, help, labelNames, buckets: SECONDS_BUCKETS, registers });

  const outcomes = counter(
    'verification_outcomes_total',
    'Requests that reached an outcome, by operation, kind (result or error) and status or error kind',
    ['operation', 'kind', 'status'],
  );
  const committed = counter(
    'verification_committed_total',
    'Request messages whose outcome was committed in a transaction',
  );
  const vendorSeconds = new Histogram({
    name: 'verification_vendor_call_seconds',
    help: 'Vendor call attempts by operation and outcome (result status or error kind)',
    labelNames: ['operation', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers,
  });
  const rateLimited = counter(
    'verification_vendor_rate_limited_total',
    'Vendor answers 429 (Too Many Requests)',
    ['operation'],
  );
  const retries = counter(
    'verification_vendor_retries_total',
    'Vendor calls tried again, by the failure (error code, else kind)',
    ['operation', 'reason'],
  );
  const limiterWait = histogram(
    'verification_limiter_wait_seconds',
    'Time a call waited for a concurrency and quota slot',
    ['operation'],
  );
  const callsStarted = counter(
    'verification_vendor_calls_started_total',
    'Vendor calls started (each one billable)',
    ['operation'],
  );
  const transitions = counter(
    'verification_breaker_transitions_total',
    'Circuit breaker transitions, by kind (open or close)',
    ['operation', 'kind'],
  );
  const reused = counter(
    'verification_dedupe_reused_total',
    'Requests answered with an outcome already paid for (billable calls saved)',
    ['operation'],
  );
  const txCommitted = counter(
    'verification_transactions_committed_total',
    'Kafka transactions committed (outputs and offsets)',
  );
  const txAborted = counter(
    'verification_transactions_aborted_total',
    'Kafka transactions that failed and were aborted',
  );
  const txSeconds = histogram(
    'verification_transaction_commit_seconds',
    'Duration of a transaction: produce, send offsets, commit',
  );
  const fenced = counter(
    'verification_producers_fenced_total',
    'Transactional producers fenced by a newer owner of their partition',
  );
  const endToEnd = histogram(
    'verification_end_to_end_seconds',
    "From a request's Kafka timestamp to the commit of its outcome",
    ['operation'],
  );
  const rebalances = counter(
    'verification_consumer_rebalances_total',
    'Consumer group joins (each rebalance this member took part in)',
  );
  const lag = new Gauge({
    name: 'verification_consumer_lag_messages',
    help: 'Log end offset minus the group committed offset, per request partition',
    labelNames: ['topic', 'partition'],
    registers,
  });
  const webhookCalls = counter(
    'verification_webhook_calls_total',
    'Calls to the webhook sink, by answer code',
    ['code'],
  );
  const expired = counter(
    'verification_vehicle_searches_expired_total',
    'Vehicle searches that reached their expiry without a final status',
  );

  const gauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect: (g: Gauge<L>) => void | Promise<void>,
  ) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers,
      collect() {
        return collect(this);
      },
    });
  gauge('verification_requests_in_flight', 'Requests taken and not yet completed', [], (g) => {
    const stats = sources.runtime?.stats();
    if (stats) g.set(stats.inFlight);
  });
  gauge('verification_partitions_assigned', 'Request partitions this member holds', ['topic'], (g) => {
    g.reset();
    for (const p of sources.runtime?.stats().partitions ?? []) g.inc({ topic: p.topic });
  });
  gauge(
    'verification_partition_window_used_ratio',
    'Uncommitted requests of a partition over PARTITION_WINDOW (paused at 1)',
    ['topic', 'partition'],
    (g) => {
      g.reset();
      for (const p of sources.runtime?.stats().partitions ?? [])
        g.set({ topic: p.topic, partition: p.partition }, p.windowUsed);
    },
  );
  gauge(
    'verification_partitions_paused',
    'Paused request partitions, by reason (window, breaker, spend-cap, shutdown)',
    ['topic', 'reason'],
    (g) => {
      g.reset();
      for (const p of sources.runtime?.stats().paused ?? []) g.inc({ topic: p.topic, reason: p.reason });
    },
  );
  gauge(
    'verification_limiter_backoff_active',
    '1 while calls of the operation wait out a 429 backoff',
    ['operation'],
    (g) => {
      for (const op of OPERATIONS)
        if (sources.limiters) g.set({ operation: op }, sources.limiters[op].backoffActive() ? 1 : 0);
    },
  );
  gauge(
    'verification_spend_cap_calls_this_hour',
    'Calls started in the current hour (across replicas when a spend cap is shared)',
    ['operation'],
    (g) => {
      for (const op of OPERATIONS)
        if (sources.limiters) g.set({ operation: op }, sources.limiters[op].stats.started);
    },
  );
  gauge(
    'verification_spend_cap_per_hour',
    'The configured spend cap (calls per hour) of operations that have one',
    ['operation'],
    (g) => {
      for (const op of OPERATIONS) {
        const cap = sources.spendCaps?.[op];
        if (cap !== undefined) g.set({ operation: op }, cap);
      }
    },
  );
  gauge(
    'verification_breaker_state',
    'Circuit breaker state per operation: 0 closed, 1 half-open, 2 open',
    ['operation'],
    (g) => {
      const state = sources.breakerState;
      if (state) for (const op of OPERATIONS) g.set({ operation: op }, BREAKER_VALUE[state(op)]);
    },
  );
  gauge(
    'verification_vehicle_searches_pending',
    'Asynchronous vehicle searches waiting for a final status',
    [],
    async (g) => {
      if (sources.pendingSearches) g.set(await sources.pendingSearches());
    },
  );

  // Counters of every operation start at 0, so that rate() and increase() see their first event.
  for (const operation of OPERATIONS) {
    for (const c of [rateLimited, callsStarted, reused]) c.inc({ operation }, 0);
    for (const kind of ['open', 'close']) transitions.inc({ operation, kind }, 0);
  }
  return {
    registry,
    attach(more) {
      sources = { ...sources, ...more };
    },
    outcome: (operation, kind, status) => {
      outcomes.inc({ operation, kind, status });
    },
    committed: (count) => {
      committed.inc(count);
    },
    endToEnd: (operation, seconds) => {
      endToEnd.observe({ operation }, seconds);
    },
    rebalance: () => {
      rebalances.inc();
    },
    vendorCall: (operation, outcome, seconds) => {
      vendorSeconds.observe({ operation, outcome }, seconds);
    },
    rateLimited: (operation) => {
      rateLimited.inc({ operation });
    },
    retry: (operation, reason) => {
      retries.inc({ operation, reason });
    },
    limiterWait: (operation, seconds) => {
      limiterWait.observe({ operation }, seconds);
    },
    callStarted: (operation) => {
      callsStarted.inc({ operation });
    },
    breakerTransition: (operation, kind) => {
      transitions.inc({ operation, kind });
    },
    paidOutcomeReused: (operation) => {
      reused.inc({ operation });
    },
    transaction(kind, seconds) {
      (kind === 'committed' ? txCommitted : txAborted).inc();
      txSeconds.observe(seconds);
    },
    producerFenced: () => {
      fenced.inc();
    },
    consumerLag: (topic, partition, value) => {
      lag.set({ topic, partition }, value);
    },
    webhookCall: (code) => {
      webhookCalls.inc({ code: String(code) });
    },
    vehicleSearchExpired: () => {
      expired.inc();
    },
  };
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
