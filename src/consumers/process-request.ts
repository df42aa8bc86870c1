import type { z } from 'zod';
import {
  requestEnvelopeSchema,
  type Correlation,
  type ErrorEnvelope,
  type Origin,
  type RequestEnvelope,
  type ResultEnvelope,
} from '../contract/envelopes.js';
import type { Operation } from '../contract/operations.js';
import { AppError, InvalidRequestError, toAppError } from '../errors.js';
import type { ParamsOf } from '../contract/params.js';
import type { Handler, HandlerContext, HandlerOutcome, Handlers } from '../handlers/types.js';
import type { ScheduleLimiter } from '../limits/types.js';
import type { RequestLogger } from '../observability/logger.js';
import { rawRequest, truncationNote } from '../producers/dead-letter-record.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { paramsHash, type IdempotencyStore, type PaidOutcome, type Reservation } from './idempotency.js';
import { decideRetry, type RetrySettings } from './retry-policy.js';
import { checkRequestBytes } from './value-guard.js';
import { decodeWhenRegistryAnswers } from './decode-wait.js';

/**
 * One request message from bytes to outcome: decode, check the envelope and the params,
 * reuse an outcome already paid for, else call the handler under the operation's limiter and
 * breaker with retries. Decides result or dead letter; never throws for a bad message.
 */
export interface ProcessDeps {
  decodeValue(value: Buffer): Promise<unknown>;
  /** The operation's schema (contract/params.ts): the one place params are checked. */
  parseParams<O extends Operation>(
    operation: O,
    params: unknown,
  ): { ok: true; value: ParamsOf<O> } | { ok: false; message: string };
  handlers: Handlers;
  limiterFor(operation: Operation): ScheduleLimiter;
  breakerFor(operation: Operation): CircuitBreaker;
  idempotency: IdempotencyStore;
  retry: RetrySettings;
  maxRequestBytes: number;
  /** Deeper JSON is dead-lettered before it is parsed (MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Raw bytes a dead letter carries whole; above, a prefix with sha256 and length. */
  maxRawBytes: number;
  now(): Date;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** A vendor call is about to be tried again after a failure with this code (else kind), for metrics. */
  onRetry?(operation: Operation, reason: string): void;
}

export interface IncomingRequest<O extends Operation = Operation> {
  operation: O;
  origin: Origin;
  value: Buffer | null;
  /** Key and traceparent of the message, handed to handlers that write later (vehicle-async). */
  correlation?: Correlation | undefined;
}

export type ProcessOutcome =
  | { kind: 'result'; result: ResultEnvelope }
  | { kind: 'error'; error: ErrorEnvelope }
  /** Stopped by shutdown or revocation: not completed, so it is read again later. */
  | { kind: 'aborted' };

/**
 * `signal` stops work before a vendor call starts (waits, backoffs, the prepare step);
 * `callSignal` aborts a call under way. They differ on revocation: a started call is paid for,
 * so it finishes and its outcome is stored for whoever owns the partition next.
 */
export interface RequestSignals {
  signal: AbortSignal;
  callSignal: AbortSignal;
}

export async function processRequest<O extends Operation>(
  deps: ProcessDeps,
  incoming: IncomingRequest<O>,
  signals: RequestSignals,
  log: RequestLogger,
): Promise<ProcessOutcome> {
  const { signal } = signals;
  const receivedAt = deps.now();
  const read = await readRequest(deps, incoming, signal, log);
  if (read === 'aborted') return { kind: 'aborted' };
  if (!read.ok) return deadLetter(deps, incoming, read.request, read.error, 0, read.requestId);
  const { envelope, params } = read;
  const hash = paramsHash(params);
  // A failing store (Redis down) throws to the runtime, which tries the message again in
  // place: an infrastructure fault must not turn requests into dead letters.
  const slot = await reserveOrReuse(deps, incoming.operation, envelope.requestId, signal);
  if (slot === 'aborted') return { kind: 'aborted' };
  if ('paid' in slot) {
    if (slot.paid.paramsHash !== null && slot.paid.paramsHash !== hash) {
      const reused = new InvalidRequestError('requestId already used with other params', {
        code: 'REQUEST_ID_REUSED',
      });
      return deadLetter(deps, incoming, envelope, reused, 0, envelope.requestId);
    }
    log.info({ requestId: envelope.requestId }, 'request already paid for; reusing its outcome');
    return {
      kind: 'result',
      result: toResult(deps, incoming, envelope, params, slot.paid.outcome, 0, receivedAt),
    };
  }
  let call: { outcome: HandlerOutcome; attempts: number };
  try {
    const context = {
      requestId: envelope.requestId,
      metadata: envelope.metadata,
      correlation: incoming.correlation,
      origin: incoming.origin,
    };
    call = await callWithRetries(deps, incoming.operation, context, params, signals, log);
  } catch (error) {
    await slot.reservation.release();
    if (signal.aborted) return { kind: 'aborted' };
    const failure = error instanceof RetriesExhausted ? error : new RetriesExhausted(toAppError(error), 0);
    return deadLetter(deps, incoming, envelope, failure.error, failure.attempts, envelope.requestId);
  }
  // Never throws: a failed write keeps the reservation (other copies wait) and is retried.
  await slot.reservation.complete({ paramsHash: hash, outcome: call.outcome });
  return {
    kind: 'result',
    result: toResult(deps, incoming, envelope, params, call.outcome, call.attempts, receivedAt),
  };
}

/**
 * The outcome already paid for this requestId, or the reservation to pay it. A copy that finds
 * another in flight waits for its outcome; if that one gives up without paying, this one tries.
 */
async function reserveOrReuse(
  deps: ProcessDeps,
  operation: Operation,
  requestId: string,
  signal: AbortSignal,
): Promise<{ paid: PaidOutcome } | { reservation: Reservation } | 'aborted'> {
  for (;;) {
    const paid = await deps.idempotency.get(operation, requestId);
    if (paid) return { paid };
    const reservation = await deps.idempotency.reserve(operation, requestId);
    if (reservation) {
      // Paid and released between the two reads above.
      const raced = await deps.idempotency.get(operation, requestId);
      if (!raced) return { reservation };
      await reservation.release();
      return { paid: raced };
    }
    try {
      await deps.sleep(RESERVATION_POLL_MS, signal);
    } catch (error) {
      if (signal.aborted) return 'aborted';
      throw error;
    }
  }
}

const RESERVATION_POLL_MS = 100;

type ReadResult<O extends Operation> =
  | { ok: true; envelope: RequestEnvelope; params: ParamsOf<O> }
  | { ok: false; error: AppError; request: Record<string, unknown>; requestId: string | null };

async function readRequest<O extends Operation>(
  deps: ProcessDeps,
  incoming: IncomingRequest<O>,
  signal: AbortSignal,
  log: RequestLogger,
): Promise<ReadResult<O> | 'aborted'> {
  const { value } = incoming;
  const raw = (): Record<string, unknown> => rawRequest(value, deps.maxRawBytes);
  if (value === null || value.length === 0) {
    return {
      ok: false,
      error: new InvalidRequestError('message has no value'),
      request: raw(),
      requestId: null,
    };
  }
  if (value.length > deps.maxRequestBytes) {
    const message = `value of ${value.length} bytes exceeds MAX_REQUEST_BYTES (${deps.maxRequestBytes})`;
    return { ok: false, error: new InvalidRequestError(message), request: raw(), requestId: null };
  }
  const unreadable = checkRequestBytes(value, deps.maxJsonDepth);
  if (unreadable !== undefined) {
    return { ok: false, error: new InvalidRequestError(unreadable), request: raw(), requestId: null };
  }
  const read = await decodeWhenRegistryAnswers(deps, value, signal, log);
  if (read === 'aborted') return read;
  if (!read.ok) return { ok: false, error: toAppError(read.error), request: raw(), requestId: null };
  const decoded = read.value;
  const parsed = requestEnvelopeSchema.safeParse(decoded);
  const asObject = isObject(decoded) ? decoded : raw();
  if (!parsed.success) {
    return {
      ok: false,
      error: new InvalidRequestError(`envelope: ${describeIssues(parsed.error)}`),
      request: asObject,
      requestId: requestIdOf(decoded),
    };
  }
  const params = deps.parseParams(incoming.operation, parsed.data.params);
  if (!params.ok) {
    return {
      ok: false,
      error: new InvalidRequestError(`params: ${params.message}`),
      request: asObject,
      requestId: parsed.data.requestId,
    };
  }
  return { ok: true, envelope: parsed.data, params: params.value };
}

/** The requestId of an invalid envelope, when it has a usable one. */
function requestIdOf(decoded: unknown): string | null {
  if (!isObject(decoded) || typeof decoded.requestId !== 'string') return null;
  const { length } = decoded.requestId;
  return length > 0 && length <= 128 ? decoded.requestId : null;
}

class RetriesExhausted extends Error {
  constructor(
    readonly error: AppError,
    readonly attempts: number,
  ) {
    super(error.message, { cause: error });
  }
}

async function callWithRetries<O extends Operation>(
  deps: ProcessDeps,
  operation: O,
  context: Omit<HandlerContext, 'signal'>,
  params: ParamsOf<O>,
  { signal, callSignal }: RequestSignals,
  log: RequestLogger,
): Promise<{ outcome: HandlerOutcome; attempts: number }> {
  const handler: Handler<O> = deps.handlers[operation];
  const limiter = deps.limiterFor(operation);
  const breaker = deps.breakerFor(operation);
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
      budgetSpentMs += Date.now() - started;
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
      await deps.sleep(decision.delayMs, signal);
      budgetSpentMs += decision.delayMs;
    }
  }
}

function toResult<O extends Operation>(
  deps: ProcessDeps,
  incoming: IncomingRequest<O>,
  envelope: RequestEnvelope,
  params: ParamsOf<O>,
  outcome: HandlerOutcome,
  attempts: number,
  receivedAt: Date,
): ResultEnvelope {
  return {
    requestId: envelope.requestId,
    operation: incoming.operation,
    status: outcome.status,
    params,
    response: outcome.response,
    vendor: outcome.vendor,
    attempts,
    receivedAt: receivedAt.toISOString(),
    completedAt: deps.now().toISOString(),
    ...(envelope.requestedAt === undefined ? {} : { requestedAt: envelope.requestedAt }),
    ...(envelope.source === undefined ? {} : { source: envelope.source }),
    ...(envelope.metadata === undefined ? {} : { metadata: envelope.metadata }),
    origin: incoming.origin,
    ...(outcome.searchId === undefined ? {} : { searchId: outcome.searchId }),
  };
}

function deadLetter(
  deps: ProcessDeps,
  incoming: IncomingRequest,
  request: Record<string, unknown>,
  error: AppError,
  attempts: number,
  requestId: string | null,
): ProcessOutcome {
  const metadata = isObject(request.metadata) ? stringValues(request.metadata) : undefined;
  const message =
    request.rawTruncated === true
      ? `${error.message}; the dead letter carries ${truncationNote(deps.maxRawBytes, Number(request.rawBytes))}`
      : error.message;
  return {
    kind: 'error',
    error: {
      requestId,
      operation: incoming.operation,
      attempts,
      failedAt: deps.now().toISOString(),
      error: {
        kind: error.kind,
        message,
        retryable: error.retryable,
        ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
        ...(error.code === undefined ? {} : { code: error.code }),
      },
      request,
      origin: incoming.origin,
      ...(metadata ? { metadata } : {}),
    },
  };
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringValues(value: Record<string, unknown>): Record<string, string> | undefined {
  const entries = Object.entries(value).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return entries.length === Object.keys(value).length ? Object.fromEntries(entries) : undefined;
}
