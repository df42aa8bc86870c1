import type {
  Correlation,
  ErrorEnvelope,
  Origin,
  RequestEnvelope,
  ResultEnvelope,
} from '../contract/envelopes.js';
import type { Lane, Operation } from '../contract/operations.js';
import { InfrastructureError, InvalidRequestError, toAppError, type AppError } from '../errors.js';
import { decodeWhenRegistryAnswers, type DecodeDeps } from './decode-wait.js';
import { checkRequestBytes } from './value-guard.js';
import type { z } from 'zod';
import { requestEnvelopeSchema } from '../contract/envelopes.js';
import type { ParamsOf } from '../contract/params.js';
import type { HandlerOutcome } from '../handlers/types.js';
import type { RequestLogger } from '../observability/logger.js';
import { rawRequest } from '../producers/dead-letter-record.js';
import { errorEnvelope, resultEnvelope, type ResultToWrite } from '../producers/output-records.js';
import {
  paramsHash,
  type Claim,
  type IdempotencyStore,
  type PaidOutcome,
  type Reservation,
} from './idempotency.js';
import {
  callWithRetries,
  RetriesExhausted,
  type CallDeps,
  type CallResult,
  type RequestSignals,
} from './vendor-call.js';
import { IdempotencyGate } from './idempotency-gate.js';
import { subjectsOfRequest } from '../at-rest/subjects.js';
import { retry, type Backoff } from '../retry.js';
import { jsonOf } from '../json-members.js';

export type { RequestSignals } from './vendor-call.js';

/** What `processRequest` depends on. */
export interface ProcessDeps extends ReadDeps, CallDeps {
  idempotency: IdempotencyStore;
  now(): Date;
  /**
   * Resolves when a paid answer, `elapsedMs` after its request was received, may go on, with
   * the answers gathered beside it (Gathering); at once when absent.
   */
  gather?(elapsedMs: number): Promise<void>;
}

export interface IncomingRequest<O extends Operation = Operation> {
  operation: O;
  origin: Origin;
  value: Buffer | null;
  /** Key and traceparent of the message, handed to handlers that write later (vehicle-async). */
  correlation?: Correlation | undefined;
  /** The lane of the topic it came from (interactive when absent): the limiter's priority. */
  lane?: Lane | undefined;
}

export type ProcessOutcome =
  /** What the worker writes: the result, the request as received and whether it opens a search. */
  | ({ kind: 'result' } & ResultToWrite)
  | { kind: 'error'; error: ErrorEnvelope }
  /** Stopped by shutdown or revocation: not completed, so it is read again later. */
  | { kind: 'aborted' };

/**
 * One request message from bytes to outcome: decode, check the envelope and the params,
 * reuse an outcome already paid for, else call the handler under the operation's limiter and
 * breaker with retries. Decides result or dead letter; never throws for a bad message.
 */
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
  const { envelope, params, received } = read;
  const request: CheckedRequest<O> = {
    deps,
    incoming,
    envelope,
    received,
    params,
    hash: paramsHash(params),
    receivedAt,
  };
  // The first claim is sent with the call's limiter slot (one write to Redis for both), and
  // the call starts only once the claim is a reservation: a round trip to Redis less before
  // every vendor call.
  let gate = IdempotencyGate.claiming(() => deps.idempotency.claim(incoming.operation, envelope.requestId));
  for (;;) {
    const paid = await payAndStore(request, gate, signals, log);
    if (paid !== 'not-reserved') return paid;
    // Not a reservation, and nothing called. A failing store (Redis down) throws to the
    // runtime, which tries the message again in place: an infrastructure fault must not turn
    // requests into dead letters.
    const turn = await reserveOrReuse(
      deps,
      incoming.operation,
      envelope.requestId,
      await gate.answer(),
      signal,
    );
    if (turn === 'aborted') return { kind: 'aborted' };
    if ('paid' in turn) return reusePaid(request, turn.paid, log);
    // Reserved here now: the gate is open, and the next pass calls.
    gate = IdempotencyGate.holding(turn.reservation);
  }
}

/** A request that passed every check, on its way to a vendor call or a reused outcome. */
interface CheckedRequest<O extends Operation> {
  deps: ProcessDeps;
  incoming: IncomingRequest<O>;
  envelope: RequestEnvelope;
  /** The request as received, unknown members included: what a dead letter carries. */
  received: Record<string, unknown>;
  params: ParamsOf<O>;
  /** paramsHash of the params: a requestId reused with other params is refused. */
  hash: string;
  receivedAt: Date;
}

function reusePaid<O extends Operation>(
  { deps, incoming, envelope, received, params, hash, receivedAt }: CheckedRequest<O>,
  paid: PaidOutcome,
  log: RequestLogger,
): ProcessOutcome {
  const otherOperation = paid.operation !== undefined && paid.operation !== incoming.operation;
  if (otherOperation || (paid.paramsHash !== null && paid.paramsHash !== hash)) {
    const message = otherOperation
      ? `requestId already used for another operation (${paid.operation})`
      : 'requestId already used with other params';
    const reused = new InvalidRequestError(message, { code: 'REQUEST_ID_REUSED' });
    return deadLetter(deps, incoming, received, reused, 0, envelope.requestId);
  }
  log.info({ requestId: envelope.requestId }, 'request already paid for; reusing its outcome');
  return {
    kind: 'result',
    result: toResult(deps, incoming, envelope, params, paid.outcome, 0, receivedAt),
    request: received,
    // The message that paid, read again (its transaction lost to a crash or a rebalance), writes
    // its events again; another message with the same requestId does not.
    opensSearch: paid.origin === undefined || sameOrigin(paid.origin, incoming.origin),
  };
}

/**
 * Calls the vendor once the gate opens (the reservation held), and stores the paid outcome for
 * later copies. `not-reserved`, having called nothing, when the gate stays shut.
 */
async function payAndStore<O extends Operation>(
  { deps, incoming, envelope, received, params, hash, receivedAt }: CheckedRequest<O>,
  gate: IdempotencyGate,
  signals: RequestSignals,
  log: RequestLogger,
): Promise<ProcessOutcome | 'not-reserved'> {
  let call: CallResult;
  try {
    const context = {
      requestId: envelope.requestId,
      metadata: envelope.metadata,
      correlation: incoming.correlation,
      origin: incoming.origin,
    };
    call = await callWithRetries(deps, {
      operation: incoming.operation,
      params,
      context,
      signals,
      log,
      gate,
      lane: incoming.lane,
    });
  } catch (error) {
    // Held once the claim answers, whether or not a call started (an abort in the queue).
    await gate.release();
    if (signals.signal.aborted) return { kind: 'aborted' };
    // Redis failed around the call (errors.ts): retried in place, never a dead letter.
    if (error instanceof InfrastructureError) throw error;
    const failure = error instanceof RetriesExhausted ? error : new RetriesExhausted(toAppError(error), 0);
    return deadLetter(deps, incoming, received, failure.error, failure.attempts, envelope.requestId);
  }
  if (call.kind === 'not-started') return 'not-reserved';
  // Stored before the outcome goes on to its commit. Not waiting (the write running beside the
  // commit) saved about 1 ms of added latency in benchmark (c), but cost 8-20% more CPU per
  // request in (a) (instant vendor, in turns over 8 pairs of runs), for reasons not found.
  // Never throws: a failed write keeps the reservation (copies elsewhere wait) and is retried;
  // copies here are answered from memory meanwhile.
  const held = await gate.done;
  // Serialised once, for the stored record and for the result written to its topic.
  const responseJson = jsonOf(call.outcome.response);
  await held.complete(
    { paramsHash: hash, operation: incoming.operation, origin: incoming.origin, outcome: call.outcome },
    subjectsOfRequest({ params, key: incoming.correlation?.key, metadata: envelope.metadata }),
    responseJson,
  );
  // Answers behind a paced limiter land one per turn of the event loop. Those of a few ms go on
  // from here together, so that what follows (the outcome's encoding, its commit, the next
  // requests' starts, their claims and limiter jobs) shares turns and Redis writes: about a
  // quarter less CPU per request in benchmark (b), 3 ms more p50 in (c). Held only once
  // stored: a crash while held must not cost a second billable call.
  if (deps.gather) await deps.gather(deps.now().getTime() - receivedAt.getTime());
  return {
    kind: 'result',
    result: toResult(deps, incoming, envelope, params, call.outcome, call.attempts, receivedAt),
    request: received,
    opensSearch: true,
    ...(responseJson === undefined ? {} : { responseJson }),
  };
}

/**
 * The outcome already paid for this requestId, or the reservation to pay it, from the first
 * claim's answer on. A copy that finds another in flight waits for its outcome; if that one
 * gives up without paying, this one tries.
 */
async function reserveOrReuse(
  deps: ProcessDeps,
  operation: Operation,
  requestId: string,
  first: Claim,
  signal: AbortSignal,
): Promise<{ paid: PaidOutcome } | { reservation: Reservation } | 'aborted'> {
  // The first answer is the first claim's; each later one a new claim's, after a wait.
  const ask = async (tries: number): Promise<NonNullable<Claim>> => {
    const claim = tries === 1 ? first : await deps.idempotency.claim(operation, requestId);
    if (!claim) throw new InFlightElsewhere();
    return claim;
  };
  try {
    return await retry(ask, {
      ...RESERVATION_POLL,
      signal,
      sleep: (ms, aborting) => deps.sleep(ms, aborting),
      retryable: (error) => error instanceof InFlightElsewhere,
    });
  } catch (error) {
    if (signal.aborted) return 'aborted';
    throw error;
  }
}

/** A copy of the request is in flight elsewhere (reserved, not yet paid): asked again. */
class InFlightElsewhere extends Error {}

/** The pace at which a copy asks again whether the one in flight elsewhere has ended: every 100 ms. */
const RESERVATION_POLL: Backoff = { firstDelayMs: 100, maxDelayMs: 100, factor: 1, jitter: 'none' };

function sameOrigin(a: Origin, b: Origin): boolean {
  return a.topic === b.topic && a.partition === b.partition && a.offset === b.offset;
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
  const request = { operation: incoming.operation, origin: incoming.origin, envelope, params };
  return resultEnvelope(request, outcome, { attempts, receivedAt, completedAt: deps.now() });
}

function deadLetter(
  deps: ProcessDeps,
  incoming: IncomingRequest,
  request: Record<string, unknown>,
  error: AppError,
  attempts: number,
  requestId: string | null,
): ProcessOutcome {
  const failed = { operation: incoming.operation, origin: incoming.origin, request, requestId };
  const details = { attempts, failedAt: deps.now(), maxRawBytes: deps.maxRawBytes };
  return { kind: 'error', error: errorEnvelope(failed, error, details) };
}

// --- Reading: a request message's bytes to a checked envelope and params. ---

/** What `readRequest` depends on. */
export interface ReadDeps extends DecodeDeps {
  /** The operation's schema (contract/params.ts): the one place params are checked. */
  parseParams<O extends Operation>(
    operation: O,
    params: unknown,
  ): { ok: true; value: ParamsOf<O> } | { ok: false; message: string };
  maxRequestBytes: number;
  /** Deeper JSON is dead-lettered before it is parsed (MAX_JSON_DEPTH). */
  maxJsonDepth: number;
  /** Raw bytes a dead letter carries whole; above, a prefix with sha256 and length. */
  maxRawBytes: number;
}

export type ReadResult<O extends Operation> =
  | { ok: true; envelope: RequestEnvelope; params: ParamsOf<O>; received: Record<string, unknown> }
  | { ok: false; error: AppError; request: Record<string, unknown>; requestId: string | null };

/**
 * A request message's bytes to a checked envelope and params, or the reason it is a dead
 * letter with what of the request can be carried: the bounds on the bytes first (before any
 * parsing), then decoding (waiting for the registry), the envelope and the operation's params.
 */
export async function readRequest<O extends Operation>(
  deps: ReadDeps,
  operation: O,
  value: Buffer | null,
  signal: AbortSignal,
  log: RequestLogger,
): Promise<ReadResult<O> | 'aborted'> {
  const raw = (): Record<string, unknown> => rawRequest(value, deps.maxRawBytes);
  const unreadable = (reason: string): ReadResult<O> => ({
    ok: false,
    error: new InvalidRequestError(reason),
    request: raw(),
    requestId: null,
  });
  if (value === null) return unreadable('message has no value');
  const reason = checkBytes(deps, value);
  if (reason !== undefined) return unreadable(reason);
  const read = await decodeWhenRegistryAnswers(deps, value, signal, log);
  if (read === 'aborted') return read;
  if (!read.ok) return { ok: false, error: toAppError(read.error), request: raw(), requestId: null };
  if (!read.mismatch) return checkEnvelope(deps, operation, read.value, raw);
  deps.onFramingMismatch?.(operation, read.mismatch, log);
  const checked = checkEnvelope(deps, operation, read.value, raw);
  if (checked.ok) return checked;
  // The framing says nothing of the request's validity, but tells its publisher what to fix too.
  const { schemaId, kind } = read.mismatch;
  const framing =
    kind === 'unknown'
      ? `framed with schema id ${schemaId}, unknown to the registry`
      : `framed with schema id ${schemaId}, which names a schema it does not match`;
  return { ...checked, error: new InvalidRequestError(`${checked.error.message} (${framing})`) };
}

/** Why the bytes cannot be read at all, checked before any parsing; undefined when they can. */
function checkBytes(deps: ReadDeps, value: Buffer): string | undefined {
  if (value.length === 0) return 'message has no value';
  if (value.length > deps.maxRequestBytes) {
    return `value of ${value.length} bytes exceeds MAX_REQUEST_BYTES (${deps.maxRequestBytes})`;
  }
  return checkRequestBytes(value, deps.maxJsonDepth);
}

function checkEnvelope<O extends Operation>(
  deps: ReadDeps,
  operation: O,
  decoded: unknown,
  raw: () => Record<string, unknown>,
): ReadResult<O> {
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
  const params = deps.parseParams(operation, parsed.data.params);
  if (!params.ok) {
    return {
      ok: false,
      error: new InvalidRequestError(`params: ${params.message}`),
      request: asObject,
      requestId: parsed.data.requestId,
    };
  }
  return { ok: true, envelope: parsed.data, params: params.value, received: asObject };
}

/** The requestId of an invalid envelope, when it has a usable one. */
function requestIdOf(decoded: unknown): string | null {
  if (!isObject(decoded) || typeof decoded.requestId !== 'string') return null;
  const { length } = decoded.requestId;
  return length > 0 && length <= 128 ? decoded.requestId : null;
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
