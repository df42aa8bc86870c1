import type { Operation } from '../contract/operations.js';
import type { ParamsOf } from '../contract/params.js';
import { InfrastructureError, toAppError, type AppError } from '../errors.js';
import type { Handler, HandlerContext, HandlerOutcome, Handlers } from '../handlers/types.js';
import type { ScheduleLimiter, Slot } from '../limits/types.js';
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

/** The call never started: the `ready` given to callWithRetries rejected (with `reason`). */
export class NotStarted extends Error {
  constructor(readonly reason: unknown) {
    super('vendor call not started', { cause: reason });
  }
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
  /**
   * When given, no call starts before `promise` resolves: the idempotency claim, set going by
   * `start` as the limiter asks Redis for the call's slot (one write for both), or before
   * anything else waits on it. If it rejects, this throws NotStarted and nothing was called.
   */
  ready?: { promise: Promise<unknown>; start: () => unknown },
): Promise<{ outcome: HandlerOutcome; attempts: number }> {
  const handler: Handler<O> = deps.handlers[operation];
  const limiter = deps.limiterFor(operation);
  const breaker = deps.breakerFor(operation);
  const call: Call<O> = { deps, operation, breaker, limiter, signal, log };
  const gate = ready?.promise.then(
    () => undefined,
    (reason: unknown) => {
      throw new NotStarted(reason);
    },
  );
  // Awaited below, or left behind by an earlier failure: never an unhandled rejection.
  gate?.catch(() => undefined);
  // Work of the request's own, such as a selfie download, runs once and outside the limiter
  // and the breaker: it is not a vendor call. Its failure is the request's dead letter. It
  // waits for `ready`, as does a breaker that is not closed: neither is held for a request
  // that will not call.
  if (ready && (handler.prepare || breaker.state !== 'closed')) {
    ready.start();
    await gate;
  }
  const input = handler.prepare ? await handler.prepare(params, signal) : params;
  // The limiter's last word on the slot comes as the request is written (Slot.confirm).
  const run = ({ confirm }: Slot): Promise<HandlerOutcome> =>
    handler(input, { ...context, signal: callSignal, beforeSend: confirm });
  let attempts = 0;
  let budgetSpentMs = 0;
  for (;;) {
    // Time waiting for an open breaker is not charged to the retry budget: an outage pauses
    // requests instead of draining them into the errors topic.
    const probe = await breaker.acquire(signal);
    const started = Date.now();
    attempts += 1;
    try {
      // The limiter's signal ends only the wait for a slot; once started, only callSignal stops
      // the call. The limiter waits for the gate before it starts the call; so does the call.
      const outcome = await limiter.schedule(
        ready && gate
          ? (slot) => {
              ready.start();
              return gate.then(() => run(slot));
            }
          : run,
        { signal, ready: gate, startReady: ready?.start },
      );
      breaker.recordSuccess();
      return { outcome, attempts };
    } catch (thrown) {
      // The reservation never came (NotStarted), or Redis failed around the call (no slot, or
      // an accepted search not recorded). Neither tells of the vendor's health, nor is it the
      // request's fault: the runtime tries the message again in place.
      if (thrown instanceof NotStarted || thrown instanceof InfrastructureError) {
        if (probe) breaker.release();
        throw thrown;
      }
      budgetSpentMs += Date.now() - started;
      const delayMs = retryDelay(call, thrown, { attempts, budgetSpentMs, probe });
      await deps.sleep(delayMs, signal);
      budgetSpentMs += delayMs;
    }
  }
}

/**
 * How long to wait before the next attempt after `thrown`; throws when there is none. An
 * attempt that tells nothing of the vendor's health frees the breaker's probe if it was the
 * probe, and only then: another request may hold it.
 */
function retryDelay<O extends Operation>(
  { deps, operation, breaker, limiter, signal, log }: Call<O>,
  thrown: unknown,
  { attempts, budgetSpentMs, probe }: { attempts: number; budgetSpentMs: number; probe: boolean },
): number {
  if (signal.aborted) {
    if (probe) breaker.release();
    throw thrown;
  }
  const error = toAppError(thrown);
  if (!error.retryable) {
    if (probe) breaker.release();
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
