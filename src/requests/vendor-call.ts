import type { Lane, Operation } from '../contract/operations.js';
import type { ParamsOf } from '../contract/params.js';
import { InfrastructureError, toAppError, type AppError } from '../errors.js';
import type { Handler, HandlerContext, HandlerOutcome, Handlers } from '../handlers/types.js';
import type { BeforeStart, ScheduleLimiter, Slot } from '../limits/types.js';
import type { RequestLogger } from '../observability/logger.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { decideRetry, type RetrySettings } from './retry-policy.js';

/** What a vendor call needs of the service: the handlers, the limits, the retry settings. */
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

/** One vendor call of a request, as callWithRetries makes it. */
export interface VendorCall<O extends Operation> {
  operation: O;
  params: ParamsOf<O>;
  context: Omit<HandlerContext, 'signal'>;
  signals: RequestSignals;
  log: RequestLogger;
  /**
   * When given, no call starts before it is done (the idempotency gate): begun as the limiter
   * asks Redis for the call's slot (one write for both), or before anything else waits on it.
   * If it fails, nothing is called and the answer is `not-started`.
   */
  gate?: BeforeStart | undefined;
  /** The request's lane, the limiter's priority (interactive when absent). */
  lane?: Lane | undefined;
}

export type CallResult =
  | { kind: 'called'; outcome: HandlerOutcome; attempts: number }
  /** The gate stayed shut: nothing was called. */
  | { kind: 'not-started' };

/** The gate's failure, told apart from the call's own as the limiter passes it on. */
class NotStarted extends Error {
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

/**
 * The operation's vendor call under its limiter and breaker, retried with backoff within the
 * retry settings, once its gate is done; `not-started` when the gate stays shut. Throws
 * RetriesExhausted with the last error when the request must be dead-lettered.
 */
export async function callWithRetries<O extends Operation>(
  deps: CallDeps,
  { operation, params, context, signals, log, gate, lane }: VendorCall<O>,
): Promise<CallResult> {
  const handler: Handler<O> = deps.handlers[operation];
  const breaker = deps.breakerFor(operation);
  // Work of the request's own, such as a selfie download, runs once and outside the limiter
  // and the breaker: it is not a vendor call. Its failure is the request's dead letter. It
  // waits for the gate, as does a breaker that is not closed: neither is held for a request
  // that will not call. A gate passed here is not waited for again.
  let waiting = gate;
  if (waiting && (handler.prepare || breaker.state !== 'closed')) {
    if (!(await opens(waiting))) return { kind: 'not-started' };
    waiting = undefined;
  }
  const input = handler.prepare ? await handler.prepare(params, signals.signal) : params;
  try {
    return {
      kind: 'called',
      ...(await callUntilDone(
        deps,
        { operation, params: input, context, signals, log, lane },
        waiting && refusalTold(waiting),
      )),
    };
  } catch (error) {
    if (error instanceof NotStarted) return { kind: 'not-started' };
    throw error;
  }
}

/** Begins the gate and tells whether it opened. */
function opens(gate: BeforeStart): Promise<boolean> {
  gate.begin();
  return gate.done.then(
    () => true,
    () => false,
  );
}

/** The gate as the limiter and the call wait for it: a refusal becomes a NotStarted. */
function refusalTold(gate: BeforeStart): BeforeStart {
  const opened = gate.done.then(
    () => undefined,
    (reason: unknown) => {
      throw new NotStarted(reason);
    },
  );
  // Awaited by the limiter, or left behind by an earlier failure: never an unhandled rejection.
  opened.catch(() => undefined);
  return {
    begin: () => {
      gate.begin();
    },
    done: opened,
  };
}

async function callUntilDone<O extends Operation>(
  deps: CallDeps,
  { operation, params: input, context, signals, log, lane }: VendorCall<O>,
  gate: BeforeStart | undefined,
): Promise<{ outcome: HandlerOutcome; attempts: number }> {
  const { signal, callSignal } = signals;
  const handler: Handler<O> = deps.handlers[operation];
  const limiter = deps.limiterFor(operation);
  const breaker = deps.breakerFor(operation);
  const call: Call<O> = { deps, operation, breaker, limiter, signal, log };
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
      // the call. The limiter waits for the gate before it starts the call; so does the call,
      // so that no limiter can start one unreserved.
      const outcome = await limiter.schedule(
        gate
          ? (slot) => {
              gate.begin();
              return gate.done.then(() => run(slot));
            }
          : run,
        { signal, beforeStart: gate, lane },
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
