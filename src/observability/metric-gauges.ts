import { LANES, OPERATIONS } from '../contract/operations.js';
import type { MetricFactory } from './metric-factory.js';
import type { BreakerPosition, MetricSources } from './metrics.js';
import { within } from '../within.js';

/** Gauges of state held elsewhere, read from the attached sources at scrape time. */

const BREAKER_VALUE: Record<BreakerPosition, number> = { closed: 0, 'half-open': 1, open: 2 };

export function runtimeGauges(make: MetricFactory, sources: () => MetricSources): void {
  make.gauge('verification_requests_in_flight', 'Requests taken and not yet completed', [], (g) => {
    const stats = sources().runtime?.stats();
    if (stats) g.set(stats.inFlight);
  });
  make.gauge('verification_partitions_assigned', 'Request partitions this member holds', ['topic'], (g) => {
    g.reset();
    for (const p of sources().runtime?.stats().partitions ?? []) g.inc({ topic: p.topic });
  });
  make.gauge(
    'verification_partition_window_used_ratio',
    'Uncommitted requests of a partition over PARTITION_WINDOW (paused at 1)',
    ['topic', 'partition'],
    (g) => {
      g.reset();
      for (const p of sources().runtime?.stats().partitions ?? [])
        g.set({ topic: p.topic, partition: p.partition }, p.windowUsed);
    },
  );
  make.gauge(
    'verification_partitions_held_by_hanging_transaction',
    "1 for each request partition waiting for an earlier owner's open transaction past the transaction timeout plus 15 s (a hanging transaction: see docs/operations.md, Hanging transactions)",
    ['topic', 'partition'],
    (g) => {
      g.reset();
      for (const p of sources().runtime?.stats().hanging ?? [])
        g.set({ topic: p.topic, partition: p.partition }, 1);
    },
  );
  make.gauge(
    'verification_partitions_paused',
    'Paused request partitions, by reason (window, breaker, spend-cap, shutdown, unstable-offsets)',
    ['topic', 'reason'],
    (g) => {
      g.reset();
      for (const p of sources().runtime?.stats().paused ?? []) g.inc({ topic: p.topic, reason: p.reason });
    },
  );
}

/** Each lane's queue in the limiter, read at scrape time (limits/lane-gate.ts). */
export function laneGauges(make: MetricFactory, sources: () => MetricSources): void {
  const each =
    (set: (op: (typeof OPERATIONS)[number], lane: (typeof LANES)[number], v: number) => void) =>
    (pick: 'queued' | 'oldestWaitMs') => {
      const { limiters } = sources();
      if (!limiters) return;
      for (const op of OPERATIONS)
        for (const lane of LANES) {
          const figures = limiters[op].stats.lanes?.[lane];
          if (figures) set(op, lane, figures[pick]);
        }
    };
  make.gauge(
    'verification_lane_queued',
    'Calls of a lane waiting in the limiter for a slot',
    ['operation', 'lane'],
    (g) => {
      each((operation, lane, v) => {
        g.set({ operation, lane }, v);
      })('queued');
    },
  );
  make.gauge(
    'verification_lane_oldest_wait_seconds',
    'How long the oldest call of a lane waiting in the limiter has waited (0: none waits)',
    ['operation', 'lane'],
    (g) => {
      each((operation, lane, v) => {
        g.set({ operation, lane }, v / 1000);
      })('oldestWaitMs');
    },
  );
}

export function operationGauges(make: MetricFactory, sources: () => MetricSources): void {
  make.gauge(
    'verification_limiter_backoff_active',
    '1 while calls of the operation wait out a 429 backoff',
    ['operation'],
    (g) => {
      const { limiters } = sources();
      if (limiters)
        for (const op of OPERATIONS) g.set({ operation: op }, limiters[op].backoffActive() ? 1 : 0);
    },
  );
  make.gauge(
    'verification_spend_cap_calls_this_hour',
    'Calls started in the current hour (across replicas when a spend cap is shared)',
    ['operation'],
    (g) => {
      const { limiters } = sources();
      if (limiters) for (const op of OPERATIONS) g.set({ operation: op }, limiters[op].stats.started);
    },
  );
  make.counter(
    'verification_limiter_late_slots_total',
    'Slots given back because the call would have started too late for them (event-loop lag); the call took a new one',
    ['operation'],
    (c) => {
      const { limiters } = sources();
      if (!limiters) return;
      c.reset();
      for (const op of OPERATIONS) c.inc({ operation: op }, limiters[op].stats.lateSlots);
    },
  );
  make.gauge(
    'verification_spend_cap_per_hour',
    'The configured spend cap (calls per hour) of operations that have one',
    ['operation'],
    (g) => {
      for (const op of OPERATIONS) {
        const cap = sources().spendCaps?.[op];
        if (cap !== undefined) g.set({ operation: op }, cap);
      }
    },
  );
  make.gauge(
    'verification_breaker_state',
    'Circuit breaker state per operation: 0 closed, 1 half-open, 2 open',
    ['operation'],
    (g) => {
      const state = sources().breakerState;
      if (state) for (const op of OPERATIONS) g.set({ operation: op }, BREAKER_VALUE[state(op)]);
    },
  );
}

export function webhookGauges(make: MetricFactory, sources: () => MetricSources): void {
  make.gauge(
    'verification_vehicle_searches_pending',
    'Asynchronous vehicle searches waiting for a final status',
    [],
    async (g) => {
      const count = sources().pendingSearches;
      if (!count) return;
      // Read from Redis at scrape time. prom-client collects every metric together, so a read
      // that fails or hangs (Redis down) would fail the whole scrape, every other series with
      // it, just when an outage needs them: the last value stays instead.
      const value = await within(count(), SCRAPE_READ_MS).catch(() => undefined);
      if (value !== undefined) g.set(value);
    },
  );
}

/** How long a scrape waits for a value read from Redis before keeping the last one. */
const SCRAPE_READ_MS = 1_000;
