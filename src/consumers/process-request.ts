import type {
  Correlation,
  ErrorEnvelope,
  Origin,
  RequestEnvelope,
  ResultEnvelope,
} from '../contract/envelopes.js';
import type { Operation } from '../contract/operations.js';
import { InvalidRequestError, toAppError, type AppError } from '../errors.js';
import type { ParamsOf } from '../contract/params.js';
import type { HandlerOutcome } from '../handlers/types.js';
import type { RequestLogger } from '../observability/logger.js';
import { truncationNote } from '../producers/dead-letter-record.js';
import { paramsHash, type IdempotencyStore, type PaidOutcome, type Reservation } from './idempotency.js';
import { isObject, readRequest, type ReadDeps } from './request-reading.js';
import { callWithRetries, RetriesExhausted, type CallDeps, type RequestSignals } from './vendor-call.js';

export type { RequestSignals } from './vendor-call.js';

/**
 * One request message from bytes to outcome: decode, check the envelope and the params,
 * reuse an outcome already paid for, else call the handler under the operation's limiter and
 * breaker with retries. Decides result or dead letter; never throws for a bad message.
 */
export interface ProcessDeps extends ReadDeps, CallDeps {
  idempotency: IdempotencyStore;
  now(): Date;
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

export async function processRequest<O extends Operation>(
  deps: ProcessDeps,
  incoming: IncomingRequest<O>,
  signals: RequestSignals,
  log: RequestLogger,
): Promise<ProcessOutcome> {
  const { signal } = signals;
  const receivedAt = deps.now();
  const read = await readRequest(deps, incoming.operation, incoming.value, signal, log);
  if (read === 'aborted') return { kind: 'aborted' };
  if (!read.ok) return deadLetter(deps, incoming, read.request, read.error, 0, read.requestId);
  const { envelope, params } = read;
  const request: CheckedRequest<O> = {
    deps,
    incoming,
    envelope,
    params,
    hash: paramsHash(params),
    receivedAt,
  };
  // A failing store (Redis down) throws to the runtime, which tries the message again in
  // place: an infrastructure fault must not turn requests into dead letters.
  const slot = await reserveOrReuse(deps, incoming.operation, envelope.requestId, signal);
  if (slot === 'aborted') return { kind: 'aborted' };
  if ('paid' in slot) return reusePaid(request, slot.paid, log);
  return payAndStore(request, slot.reservation, signals, log);
}

/** A request that passed every check, on its way to a vendor call or a reused outcome. */
interface CheckedRequest<O extends Operation> {
  deps: ProcessDeps;
  incoming: IncomingRequest<O>;
  envelope: RequestEnvelope;
  params: ParamsOf<O>;
  /** paramsHash of the params: a requestId reused with other params is refused. */
  hash: string;
  receivedAt: Date;
}

function reusePaid<O extends Operation>(
  { deps, incoming, envelope, params, hash, receivedAt }: CheckedRequest<O>,
  paid: PaidOutcome,
  log: RequestLogger,
): ProcessOutcome {
  if (paid.paramsHash !== null && paid.paramsHash !== hash) {
    const reused = new InvalidRequestError('requestId already used with other params', {
      code: 'REQUEST_ID_REUSED',
    });
    return deadLetter(deps, incoming, envelope, reused, 0, envelope.requestId);
  }
  log.info({ requestId: envelope.requestId }, 'request already paid for; reusing its outcome');
  return {
    kind: 'result',
    result: toResult(deps, incoming, envelope, params, paid.outcome, 0, receivedAt),
  };
}

/** Calls the vendor under the reservation and stores the paid outcome for later copies. */
async function payAndStore<O extends Operation>(
  { deps, incoming, envelope, params, hash, receivedAt }: CheckedRequest<O>,
  reservation: Reservation,
  signals: RequestSignals,
  log: RequestLogger,
): Promise<ProcessOutcome> {
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
    await reservation.release();
    if (signals.signal.aborted) return { kind: 'aborted' };
    const failure = error instanceof RetriesExhausted ? error : new RetriesExhausted(toAppError(error), 0);
    return deadLetter(deps, incoming, envelope, failure.error, failure.attempts, envelope.requestId);
  }
  // Never throws: a failed write keeps the reservation (other copies wait) and is retried.
  await reservation.complete({ paramsHash: hash, outcome: call.outcome });
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
    // Undefined also when the outcome was paid since the read above: the next read has it.
    const reservation = await deps.idempotency.reserve(operation, requestId);
    if (reservation) return { reservation };
    if (await deps.idempotency.get(operation, requestId)) continue;
    try {
      await deps.sleep(RESERVATION_POLL_MS, signal);
    } catch (error) {
      if (signal.aborted) return 'aborted';
      throw error;
    }
  }
}

const RESERVATION_POLL_MS = 100;

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

function stringValues(value: Record<string, unknown>): Record<string, string> | undefined {
  const entries = Object.entries(value).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return entries.length === Object.keys(value).length ? Object.fromEntries(entries) : undefined;
}
