import type { Counter } from 'prom-client';
import { OPERATIONS } from '../contract/operations.js';
import { ERROR_KINDS } from '../errors.js';
import { FRAMING_MISMATCH_KINDS } from '../producers/value-codec.js';
import { NOT_STORED_STORES, REFUSAL_REASONS, REFUSED_VALUE_STORES } from '../at-rest/refusals.js';
import { SECONDS_BUCKETS, type MetricFactory } from './metric-factory.js';
import type { ServiceMetrics } from './metrics.js';

/** The breaker transitions counted: opened, opened again by a failed probe, closed. */
export const BREAKER_TRANSITIONS = ['open', 'reopen', 'close'] as const;
export type BreakerTransition = (typeof BREAKER_TRANSITIONS)[number];

/**
 * The families the service's parts record into, grouped by the part that records, each group
 * with its recording methods.
 */

type RequestRecorders = Pick<
  ServiceMetrics,
  'outcome' | 'committed' | 'endToEnd' | 'rebalance' | 'consumerLag' | 'framingMismatch'
>;

export function requestRecorders(make: MetricFactory): RequestRecorders {
  const outcomes = make.counter(
    'verification_outcomes_total',
    'Requests whose outcome was committed, by operation, kind (result or error) and status or error kind',
    ['operation', 'kind', 'status'],
  );
  const committed = make.counter(
    'verification_committed_total',
    'Request messages whose outcome was committed in a transaction',
  );
  const endToEnd = make.histogram(
    'verification_end_to_end_seconds',
    "From a request's Kafka timestamp to the commit of its outcome",
    ['operation'],
    // A backlog, a breaker's pause or a spent hourly cap hold requests for an hour or more.
    [...SECONDS_BUCKETS, 900, 3600, 14_400, 86_400],
  );
  const rebalances = make.counter(
    'verification_consumer_rebalances_total',
    'Consumer group joins (each rebalance this member took part in)',
  );
  const lag = make.gauge(
    'verification_consumer_lag_messages',
    'Log end offset minus the group committed offset, per request partition',
    ['topic', 'partition'],
  );
  const framing = make.counter(
    'verification_request_framing_mismatches_total',
    'Requests read as JSON although their framing schema id did not describe them: unknown to the registry, or naming a schema they do not match (foreign: another subject’s, or a stale id)',
    ['operation', 'kind'],
  );
  for (const operation of OPERATIONS)
    for (const kind of FRAMING_MISMATCH_KINDS) framing.inc({ operation, kind }, 0);
  // Every dead-letter series starts at 0 (operations × error kinds, 70): increase() then sees a
  // first burst of dead letters, which the VerificationDeadLetters alert is about.
  for (const operation of OPERATIONS)
    for (const status of ERROR_KINDS) outcomes.inc({ operation, kind: 'error', status }, 0);
  return {
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
    consumerLag: (topic, partition, value) => {
      lag.set({ topic, partition }, value);
    },
    framingMismatch: (operation, kind) => {
      framing.inc({ operation, kind });
    },
  };
}

type VendorRecorders = Pick<
  ServiceMetrics,
  | 'vendorCall'
  | 'rateLimited'
  | 'retry'
  | 'limiterWait'
  | 'callStarted'
  | 'breakerTransition'
  | 'paidOutcomeReused'
>;

export function vendorRecorders(make: MetricFactory): VendorRecorders {
  const vendorSeconds = make.histogram(
    'verification_vendor_call_seconds',
    'Vendor call attempts by operation and outcome (result status or error kind)',
    ['operation', 'outcome'],
    // Past VENDOR_TIMEOUT_MS' default (30 s), so that a timed-out attempt is not lost in +Inf.
    [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 45, 60, 120],
  );
  const rateLimited = make.counter(
    'verification_vendor_rate_limited_total',
    'Vendor answers 429 (Too Many Requests)',
    ['operation'],
  );
  const retries = make.counter(
    'verification_vendor_retries_total',
    'Vendor calls tried again, by the failure (error code, else kind)',
    ['operation', 'reason'],
  );
  const { limiterWait, callsStarted, laneCalls } = limiterFamilies(make);
  const { transitions, reused } = breakerAndDedupe(make);
  startAtZero([rateLimited, callsStarted, reused], transitions);
  return {
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
    callStarted: (operation, lane = 'interactive') => {
      callsStarted.inc({ operation });
      laneCalls.inc({ operation, lane });
    },
    breakerTransition: (operation, kind) => {
      transitions.inc({ operation, kind });
    },
    paidOutcomeReused: (operation) => {
      reused.inc({ operation });
    },
  };
}

function limiterFamilies(make: MetricFactory) {
  const limiterWait = make.histogram(
    'verification_limiter_wait_seconds',
    'Time a call waited for a concurrency and quota slot, and for its requestId to be reserved (asked for meanwhile)',
    ['operation'],
    // A spent hourly cap holds calls until the next hour.
    [...SECONDS_BUCKETS, 900, 3600],
  );
  const callsStarted = make.counter(
    'verification_vendor_calls_started_total',
    'Vendor calls started (each one billable)',
    ['operation'],
  );
  const laneCalls = make.counter(
    'verification_lane_calls_started_total',
    'Vendor calls started, by operation and lane (interactive, bulk): rate() gives each lane its calls per second',
    ['operation', 'lane'],
  );
  return { limiterWait, callsStarted, laneCalls };
}

function breakerAndDedupe(make: MetricFactory) {
  const transitions = make.counter(
    'verification_breaker_transitions_total',
    'Circuit breaker transitions, by kind (open; reopen: a probe call failed; close)',
    ['operation', 'kind'],
  );
  const reused = make.counter(
    'verification_dedupe_reused_total',
    'Requests that found an outcome already paid for their requestId, so made no call (billable calls saved): answered with it, or refused as REQUEST_ID_REUSED',
    ['operation'],
  );
  return { transitions, reused };
}

/** Counters of every operation start at 0, so that rate() and increase() see their first event. */
function startAtZero(
  byOperation: readonly Counter<'operation'>[],
  transitions: Counter<'operation' | 'kind'>,
): void {
  for (const operation of OPERATIONS) {
    for (const c of byOperation) c.inc({ operation }, 0);
    for (const kind of BREAKER_TRANSITIONS) transitions.inc({ operation, kind }, 0);
  }
}

type TransactionRecorders = Pick<
  ServiceMetrics,
  'transaction' | 'producerFenced' | 'commitRefused' | 'transactionCallResumed'
>;

export function transactionRecorders(make: MetricFactory): TransactionRecorders {
  const txCommitted = make.counter(
    'verification_transactions_committed_total',
    'Kafka transactions committed (outputs and offsets)',
  );
  const txAborted = make.counter(
    'verification_transactions_aborted_total',
    'Kafka transactions that failed and were aborted',
  );
  const txSeconds = make.histogram(
    'verification_transaction_commit_seconds',
    'Duration of a transaction: produce, send offsets, commit',
  );
  const fenced = make.counter(
    'verification_producers_fenced_total',
    'Transactional producer fenced: its transaction outlived the timeout, or another process took its transactional id',
  );
  const refused = make.counter(
    'verification_commits_refused_total',
    "Transactions whose offsets the group refused because this member's generation was over (a zombie's commit)",
  );
  const resumed = make.counter(
    'verification_transaction_calls_resumed_total',
    "A transaction's sendOffsets or commit made again after a transient error (a coordinator moving): the transaction went on",
    ['call'],
  );
  for (const call of ['sendOffsets', 'commit'] as const) resumed.inc({ call }, 0);
  return {
    transaction(kind, seconds) {
      (kind === 'committed' ? txCommitted : txAborted).inc();
      txSeconds.observe(seconds);
    },
    producerFenced: () => {
      fenced.inc();
    },
    commitRefused: () => {
      refused.inc();
    },
    transactionCallResumed: (call) => {
      resumed.inc({ call });
    },
  };
}

type WebhookRecorders = Pick<ServiceMetrics, 'webhookCall' | 'vehicleSearchExpired'>;

export function webhookRecorders(make: MetricFactory): WebhookRecorders {
  const webhookCalls = make.counter(
    'verification_webhook_calls_total',
    'Calls to the webhook sink, by answer code',
    ['code'],
  );
  const expired = make.counter(
    'verification_vehicle_searches_expired_total',
    'Vehicle searches that reached their expiry without a final status',
  );
  return {
    webhookCall: (code) => {
      webhookCalls.inc({ code: String(code) });
    },
    vehicleSearchExpired: () => {
      expired.inc();
    },
  };
}

export function refusalRecorders(
  make: MetricFactory,
): Pick<ServiceMetrics, 'redisValueRefused' | 'redisValueNotStored'> {
  const refused = make.counter(
    'verification_redis_values_refused_total',
    'Values read back from Redis and refused (never served, published or trusted), by store and reason',
    ['store', 'reason'],
  );
  // Every series starts at 0: increase() then sees the first refusal, which matters most.
  for (const store of REFUSED_VALUE_STORES)
    for (const reason of REFUSAL_REASONS) refused.inc({ store, reason }, 0);
  const notStored = make.counter(
    'verification_redis_values_not_stored_total',
    'Values not stored in Redis because a person their request names was being erased (the outcome is published, not kept), by store',
    ['store'],
  );
  for (const store of NOT_STORED_STORES) notStored.inc({ store }, 0);
  return {
    redisValueRefused: (store, reason) => {
      refused.inc({ store, reason });
    },
    redisValueNotStored: (store) => {
      notStored.inc({ store });
    },
  };
}
