import type { CircuitBreaker } from '../requests/circuit-breaker.js';
import type { IdempotencyStore } from '../requests/idempotency.js';
import { OPERATIONS, type Operation } from '../contract/operations.js';
import { toAppError } from '../errors.js';
import type { Handler, Handlers } from '../handlers/types.js';
import { SlotMissedError } from '../limits/errors.js';
import type { OperationLimiter } from '../limits/types.js';
import { isProducerFenced, type TransactionalProducer } from '../consumers/transactional-producer.js';
import type { EventPublisher } from '../webhooks/event-publisher.js';
import type { ServiceMetrics } from '../observability/metrics.js';

/**
 * Decorators that measure the service's parts from the outside, so that the parts themselves
 * stay free of metrics code: the composition root (src/service/) wraps what it builds before
 * handing it to the runtime.
 */
const seconds = (startedAt: number): number => (performance.now() - startedAt) / 1000;

export interface InstrumentedLimiter extends OperationLimiter {
  /** True while this replica waits out a 429 backoff it was told of. */
  backoffActive(): boolean;
}

/** Slot waits, calls started and 429 backoffs of one operation's limiter. */
export function instrumentLimiter(
  operation: Operation,
  limiter: OperationLimiter,
  metrics: Pick<ServiceMetrics, 'limiterWait' | 'callStarted'>,
): InstrumentedLimiter {
  let backoffUntil = 0;
  return {
    schedule(fn, options) {
      const queuedAt = performance.now();
      return limiter.schedule((slot) => {
        // fn runs again when its request would have left too late for its slot: still one call.
        if (slot.renewals === 0) {
          metrics.limiterWait(operation, seconds(queuedAt));
          metrics.callStarted(operation, options?.lane);
        }
        return fn(slot);
      }, options);
    },
    backoff(ms) {
      backoffUntil = Math.max(backoffUntil, Date.now() + ms);
      limiter.backoff(ms);
    },
    get stats() {
      return limiter.stats;
    },
    backoffActive: () => backoffUntil > Date.now(),
  };
}

export function instrumentLimiters(
  get: (operation: Operation) => OperationLimiter,
  metrics: ServiceMetrics,
): Record<Operation, InstrumentedLimiter> {
  return Object.fromEntries(OPERATIONS.map((op) => [op, instrumentLimiter(op, get(op), metrics)])) as Record<
    Operation,
    InstrumentedLimiter
  >;
}

/** Each vendor attempt's duration and outcome (status, or the error's kind), and 429s. */
export function instrumentHandlers(
  handlers: Handlers,
  metrics: Pick<ServiceMetrics, 'vendorCall' | 'rateLimited'>,
): Handlers {
  const wrap =
    (operation: Operation, handler: Handler): Handler =>
    async (params, context) => {
      const startedAt = performance.now();
      try {
        const outcome = await handler(params, context);
        metrics.vendorCall(operation, outcome.status, seconds(startedAt));
        return outcome;
      } catch (error) {
        // Refused before it was sent (Slot.confirm): not a vendor call; the limiter runs it again.
        if (error instanceof SlotMissedError) throw error;
        const appError = toAppError(error);
        metrics.vendorCall(operation, appError.kind, seconds(startedAt));
        if (appError.httpStatus === 429) metrics.rateLimited(operation);
        throw error;
      }
    };
  // The handler's prepare step (a selfie download) stays outside what is measured, as it is
  // outside the vendor's limiter and breaker.
  return Object.fromEntries(
    OPERATIONS.map((op) => {
      const handler = handlers[op] as Handler;
      return [op, Object.assign(wrap(op, handler), handler.prepare ? { prepare: handler.prepare } : {})];
    }),
  ) as unknown as Handlers;
}

/** Counts outcomes reused instead of paid again. */
export function instrumentIdempotency(
  store: IdempotencyStore,
  metrics: Pick<ServiceMetrics, 'paidOutcomeReused'>,
): IdempotencyStore {
  return {
    async claim(operation, requestId) {
      const claim = await store.claim(operation, requestId);
      if (claim && 'paid' in claim) metrics.paidOutcomeReused(operation);
      return claim;
    },
    settle: (signal) => store.settle(signal),
  };
}

/** Transactions committed and aborted, their duration, and fencing. */
export function instrumentProducer(
  producer: TransactionalProducer,
  metrics: Pick<ServiceMetrics, 'transaction' | 'producerFenced'>,
): TransactionalProducer {
  return {
    connect: () => producer.connect(),
    close: () => producer.close(),
    fence: () => producer.fence(),
    async commit(records, offsets, group) {
      const startedAt = performance.now();
      try {
        await producer.commit(records, offsets, group);
        metrics.transaction('committed', seconds(startedAt));
      } catch (error) {
        metrics.transaction('aborted', seconds(startedAt));
        if (isProducerFenced(error)) metrics.producerFenced();
        throw error;
      }
    },
  };
}

/** Final vehicle-search events: counts the expired ones. */
export function instrumentPublisher(
  publisher: EventPublisher,
  metrics: Pick<ServiceMetrics, 'vehicleSearchExpired'>,
): EventPublisher {
  return {
    connect: () => publisher.connect(),
    disconnect: () => publisher.disconnect(),
    async publish(event, correlation) {
      await publisher.publish(event, correlation);
      if (event.status === 'expired') metrics.vehicleSearchExpired();
    },
  };
}

export function watchBreaker(
  operation: Operation,
  breaker: CircuitBreaker,
  metrics: Pick<ServiceMetrics, 'breakerTransition'>,
): void {
  breaker.on('open', () => {
    metrics.breakerTransition(operation, 'open');
  });
  // A failed probe: the outage goes on (the alert tells it from a half-open breaker left alone).
  breaker.on('reopen', () => {
    metrics.breakerTransition(operation, 'reopen');
  });
  breaker.on('close', () => {
    metrics.breakerTransition(operation, 'close');
  });
}
