import type { Operation } from '../contract/operations.js';
import type { ParamsOf } from '../contract/params.js';
import { toAppError, type AppError } from '../errors.js';
import type { Handler, HandlerContext, HandlerOutcome, Handlers } from '../handlers/types.js';
import type { ScheduleLimiter } from '../limits/types.js';
import type { RequestLogger } from '../observability/logger.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { decideRetry, type RetrySettings } from './retry-policy.js';

/**
 * The operation's vendor call under its limiter and breaker, retried with backoff within the
 * retry settings; throws RetriesExhausted with the last error when the request must be
 * dead-lettered.
 */
export interface CallDeps {
  handlers: Handlers;
  limiterFor(operation: Operation): ScheduleLimiter;
  breakerFor(operation: Operation): CircuitBreaker;
  retry: RetrySettings;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** A vendor call is about to be tried again after a failure with this code (else kind), for metrics. */
  onRetry?(operation: Operation, reason: string): void;
}

/**
 * `signal` stops work before a vendor call starts (waits, backoffs, the prepare step);
 * `callSignal` aborts a call under way. They differ on revocation: a started call is paid for,
 * so it finishes and its outcome is stored for whoever owns the partition next.
 */
export interface RequestSignals {
  signal: AbortSignal;
  callSignal: AbortSignal;
}

export class RetriesExhausted extends Error {
  constructor(
    readonly error: AppError,
    readonly attempts: number,
  ) {
    super(error.message, { cause: error });
  }
}

/** What one call needs, resolved once per request. */
interface Call<O extends Operation> {
  deps: CallDeps;
  operation: O;
  breaker: CircuitBreaker;
  limiter: ScheduleLimiter;
  signal: AbortSignal;
  log: RequestLogger;
}

export async function callWithRetries<O extends Operation>(
  deps: CallDeps,
  operation: O,
  context: Omit<HandlerContext, 'signal'>,
  params: ParamsOf<O>,
  { signal, callSignal }: RequestSignals,
  log: RequestLogger,
): Promise<{ outcome: HandlerOutcome; attempts: number }> {
  const handler: Handler<O> = deps.handlers[operation];
  const limiter = deps.limiterFor(operation);
  const breaker = deps.breakerFor(operation);
  const call: Call<O> = { deps, operation, breaker, limiter, signal, log };
  // Work of the request's own, such as a selfie download, runs once and outside the limiter
  // and the breaker: it is not a vendor call. Its failure is the request's dead letter.
  const input = handler.prepare ? await handler.prepare(params, signal) : params;
  let attempts = 0;
  let budgetSpentMs = 0;
  for (;;) {
    // Time waiting for an open breaker is not charged to the retry budget: an outage pauses
    // requests instead of draining them into the errors topic.
    await breaker.acquire(signal);
    const started = Date.now();
    attempts += 1;
    try {
      // The limiter's signal ends only the wait for a slot; once started, only callSignal stops
      // the call.
      const outcome = await limiter.schedule(() => handler(input, { ...context, signal: callSignal }), {
        signal,
      });
      breaker.recordSuccess();
      return { outcome, attempts };
    } catch (thrown) {
      budgetSpentMs += Date.now() - started;
      const delayMs = retryDelay(call, thrown, attempts, budgetSpentMs);
      await deps.sleep(delayMs, signal);
      budgetSpentMs += delayMs;
    }
  }
}

/** How long to wait before the next attempt after `thrown`; throws when there is none. */
function retryDelay<O extends Operation>(
  { deps, operation, breaker, limiter, signal, log }: Call<O>,
  thrown: unknown,
  attempts: number,
  budgetSpentMs: number,
): number {
  if (signal.aborted) {
    breaker.release();
    throw thrown;
  }
  const error = toAppError(thrown);
  if (!error.retryable) {
    breaker.release();
    throw new RetriesExhausted(error, attempts);
  }
  breaker.recordFailure();
  if (error.httpStatus === 429 && error.retryAfterMs !== undefined) limiter.backoff(error.retryAfterMs);
  const decision = decideRetry(deps.retry, {
    attempts,
    elapsedMs: budgetSpentMs,
    retryAfterMs: error.retryAfterMs,
  });
  if (!decision.retry) throw new RetriesExhausted(error, attempts);
  deps.onRetry?.(operation, error.code ?? error.kind);
  log.warn(
    { attempts, delayMs: decision.delayMs, kind: error.kind, httpStatus: error.httpStatus },
    'vendor call failed; retrying',
  );
  return decision.delayMs;
}
