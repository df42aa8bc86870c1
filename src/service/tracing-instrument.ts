import type { IdempotencyStore } from '../requests/idempotency.js';
import type { ProcessDeps } from '../requests/process-request.js';
import type { ScheduleLimiter, ScheduleOptions, Slot } from '../limits/types.js';
import { OPERATIONS, type Operation } from '../contract/operations.js';
import { toAppError } from '../errors.js';
import type { Handler, Handlers } from '../handlers/types.js';
import type { Tracing } from '../observability/tracing.js';

/**
 * Child spans of a request's span, made by decorators like the metrics ones: decoding and
 * validation, the dedupe lookup, the limiter wait and each vendor attempt. Attributes hold
 * the operation and codes only.
 */
export function traceScheduleLimiter(limiter: ScheduleLimiter, tracing: Tracing): ScheduleLimiter {
  return {
    schedule<T>(fn: (slot: Slot) => Promise<T>, options?: ScheduleOptions): Promise<T> {
      const wait = tracing.startSpan('limiter wait');
      let waiting = true;
      const endWait = (): void => {
        if (waiting) wait.end();
        waiting = false;
      };
      // The limiter runs fn from its own queue: bind it to this request's context.
      const run = tracing.bind(fn);
      return limiter
        .schedule((slot) => {
          endWait();
          return run(slot);
        }, options)
        .finally(endWait);
    },
    backoff: (ms: number) => {
      limiter.backoff(ms);
    },
  };
}

export function traceHandlers(handlers: Handlers, tracing: Tracing): Handlers {
  const wrap =
    (operation: Operation, handler: Handler): Handler =>
    (params, context) =>
      tracing.span(
        `vendor ${operation}`,
        async (span) => {
          try {
            const outcome = await handler(params, context);
            span.setAttributes({
              'http.response.status_code': outcome.vendor.httpStatus,
              'verification.status': outcome.status,
            });
            return outcome;
          } catch (error) {
            const appError = toAppError(error);
            span.setAttributes({
              'error.type': appError.code ?? appError.kind,
              ...(appError.httpStatus === undefined
                ? {}
                : { 'http.response.status_code': appError.httpStatus }),
            });
            throw error;
          }
        },
        { 'verification.operation': operation },
      );
  // The handler's prepare step (a selfie download) stays outside what is measured, as it is
  // outside the vendor's limiter and breaker.
  return Object.fromEntries(
    OPERATIONS.map((op) => {
      const handler = handlers[op] as Handler;
      return [op, Object.assign(wrap(op, handler), handler.prepare ? { prepare: handler.prepare } : {})];
    }),
  ) as unknown as Handlers;
}

export function traceIdempotency(store: IdempotencyStore, tracing: Tracing): IdempotencyStore {
  return {
    claim: (operation, requestId) =>
      tracing.span('dedupe', async (span) => {
        const claim = await store.claim(operation, requestId);
        span.setAttribute('verification.dedupe.hit', claim !== undefined && 'paid' in claim);
        return claim;
      }),
    settle: (signal) => store.settle(signal),
  };
}

/** Decoding (framing, registry, JSON) and params validation. */
export function traceValidation(
  deps: Pick<ProcessDeps, 'decodeValue' | 'parseParams'>,
  tracing: Tracing,
): Pick<ProcessDeps, 'decodeValue' | 'parseParams'> {
  return {
    decodeValue: (value) => tracing.span('decode', () => deps.decodeValue(value)),
    parseParams: (operation, params) => {
      const span = tracing.startSpan('validate', { 'verification.operation': operation });
      const result = deps.parseParams(operation, params);
      span.setAttribute('verification.valid', result.ok);
      span.end();
      return result;
    },
  };
}

/** The request-processing dependencies with their child spans (unchanged without tracing). */
export function traceProcessDeps(deps: ProcessDeps, tracing: Tracing | undefined): ProcessDeps {
  if (!tracing) return deps;
  const limiters = new Map<Operation, ScheduleLimiter>();
  return {
    ...deps,
    ...traceValidation(deps, tracing),
    handlers: traceHandlers(deps.handlers, tracing),
    idempotency: traceIdempotency(deps.idempotency, tracing),
    limiterFor(operation) {
      let limiter = limiters.get(operation);
      if (!limiter) {
        limiter = traceScheduleLimiter(deps.limiterFor(operation), tracing);
        limiters.set(operation, limiter);
      }
      return limiter;
    },
  };
}
