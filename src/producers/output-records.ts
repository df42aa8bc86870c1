import type { IHeaders } from '../kafka/client.js';
import type {
  Correlation,
  ErrorEnvelope,
  Origin,
  RequestEnvelope,
  ResultEnvelope,
  VehicleSearchEvent,
} from '../contract/envelopes.js';
import type { Operation, TopicNames } from '../contract/operations.js';
import type { ParamsOf } from '../contract/params.js';
import type { AppError } from '../errors.js';
import type { HandlerOutcome } from '../handlers/types.js';
import { withMember } from '../json-members.js';
import { maxRawBytes, rawRequest, truncationNote } from './dead-letter-record.js';
import { buildHeaders } from './headers.js';
import { fitResult } from './shrink-result.js';
import { isFramed, RegistryUnavailable, type ValueCodec } from './value-codec.js';

/** A message ready to be sent inside a transaction. */
export interface OutputRecord {
  topic: string;
  key: Buffer | null;
  value: Buffer;
  headers: IHeaders;
}

export interface OutputDeps {
  codec: ValueCodec;
  topics: TopicNames;
  /** CloudEvents `source` attribute, e.g. `/verification-gateway`. */
  source: string;
  resultMaxBytes: number;
  now(): Date;
}

export interface ResultToWrite {
  result: ResultEnvelope;
  /** The request as received: what a `result_too_large` dead letter carries. */
  request: Record<string, unknown>;
  /**
   * Whether to write the `pending` event of an accepted vehicle-async search: false for a copy
   * answered from an outcome another message paid for, whose search has its events.
   */
  opensSearch: boolean;
  /**
   * JSON.stringify of `result.response` when the caller serialised it already (for the stored
   * outcome): spliced into the result's JSON instead of serialised again.
   */
  responseJson?: string;
}

/**
 * The records of one result: the result itself and, for an accepted vehicle-async search,
 * its `pending` event (shared/contract.md, "Vehicle-search event"). A result too large even
 * after replacing its images becomes a `result_too_large` dead letter, which carries the
 * request's raw bytes (`raw`, cut if need be) when the request as read is too large too.
 */
export async function recordsForResult(
  deps: OutputDeps,
  { result, request, opensSearch, responseJson }: ResultToWrite,
  correlation: Correlation,
  raw: Buffer | null,
): Promise<OutputRecord[]> {
  const topic = deps.topics.result(result.operation);
  const cloudEvent = { type: `verification.result.${result.operation}`, subject: result.requestId };
  // Encoded whole first: nearly every result fits, and measuring it apart cost a second
  // JSON.stringify of every result.
  const json = responseJson === undefined ? undefined : resultJson(result, responseJson);
  let record = await encode(deps, topic, result, correlation, cloudEvent, json);
  if (jsonBytes(record.value) > deps.resultMaxBytes) {
    const fitted = fitResult(result, deps.resultMaxBytes);
    if (!fitted) return [await recordForDeadLetter(deps, tooLarge(deps, result, request), correlation, raw)];
    record = await encode(deps, topic, fitted.envelope, correlation, cloudEvent);
  }
  const records = [record];
  if (
    opensSearch &&
    result.operation === 'vehicle-async' &&
    result.status === 'accepted' &&
    result.searchId !== undefined
  ) {
    const pending: VehicleSearchEvent = {
      requestId: result.requestId,
      searchId: result.searchId,
      status: 'pending',
      at: result.completedAt,
      ...(result.metadata ? { metadata: result.metadata } : {}),
    };
    records.push(await recordForEvent(deps, pending, correlation));
  }
  return records;
}

/**
 * A dead letter that is always written: the errors topic is where a bad message must end up,
 * so neither its content nor its size may stop it. If the envelope cannot be encoded (a value
 * the codec chokes on) or is larger than `resultMaxBytes`, its `request` is replaced by the
 * raw bytes of the message, cut to a prefix with their sha256 and length when they are large.
 * Only a failure of the fallback too (registry unreachable) is thrown, to be retried in place.
 */
export async function recordForDeadLetter(
  deps: OutputDeps,
  error: ErrorEnvelope,
  correlation: Correlation,
  raw: Buffer | null,
): Promise<OutputRecord> {
  try {
    const record = await recordForError(deps, error, correlation);
    if (jsonBytes(record.value) <= deps.resultMaxBytes) return record;
  } catch (failure) {
    // The registry away is no fault of the content: tried again in place, unchanged.
    if (failure instanceof RegistryUnavailable) throw failure;
    // The content could not be encoded: fall back to the raw bytes below.
  }
  const kept = maxRawBytes(deps.resultMaxBytes);
  const request = rawRequest(raw, kept);
  const note =
    request.rawTruncated === true
      ? `; request replaced by ${truncationNote(kept, raw?.length ?? 0)}`
      : '; request replaced by its raw bytes';
  const fallback: ErrorEnvelope = {
    ...error,
    error: { ...error.error, message: `${error.error.message.slice(0, 1_000)}${note}` },
    request,
  };
  return recordForError(deps, fallback, correlation);
}

export function recordForError(
  deps: OutputDeps,
  error: ErrorEnvelope,
  correlation: Correlation,
): Promise<OutputRecord> {
  return encode(deps, deps.topics.errors, error, correlation, {
    type: `verification.error.${error.operation}`,
    subject: error.requestId,
  });
}

export function recordForEvent(
  deps: OutputDeps,
  event: VehicleSearchEvent,
  correlation: Correlation,
): Promise<OutputRecord> {
  return encode(deps, deps.topics.vehicleSearchEvents, event, correlation, {
    type: `verification.event.vehicle-search.${event.status}`,
    subject: event.requestId,
  });
}

/** Bytes of the JSON in an encoded value: without the registry's 5-byte frame, if framed. */
function jsonBytes(value: Buffer): number {
  return isFramed(value) ? value.length - 5 : value.length;
}

function tooLarge(deps: OutputDeps, result: ResultEnvelope, request: Record<string, unknown>): ErrorEnvelope {
  return {
    requestId: result.requestId,
    operation: result.operation,
    attempts: result.attempts,
    failedAt: deps.now().toISOString(),
    error: {
      kind: 'result_too_large',
      message: `result exceeds RESULT_MAX_BYTES (${deps.resultMaxBytes}) even without its images`,
      retryable: false,
    },
    request,
    origin: result.origin,
    ...(result.metadata ? { metadata: result.metadata } : {}),
  };
}

async function encode(
  deps: OutputDeps,
  topic: string,
  value: object,
  correlation: Correlation,
  cloudEvent: { type: string; subject: string | null },
  json?: string,
): Promise<OutputRecord> {
  return {
    topic,
    key: correlation.key,
    value: await deps.codec.encode(topic, value, json),
    headers: buildHeaders({
      type: cloudEvent.type,
      subject: cloudEvent.subject,
      source: deps.source,
      time: deps.now(),
      traceparent: correlation.traceparent,
    }),
  };
}

/**
 * The JSON of a result envelope whose response is serialised already (`responseJson`): the
 * envelope's other members, then the response, last (the order of members means nothing in
 * JSON; the result parses to the same envelope).
 */
export function resultJson(result: ResultEnvelope, responseJson: string | undefined): string {
  const { response: _response, ...members } = result;
  return withMember(JSON.stringify(members), 'response', responseJson);
}

/** The result envelope of a request the vendor answered (or whose paid answer is reused). */
export function resultEnvelope<O extends Operation>(
  request: { operation: O; origin: Origin; envelope: RequestEnvelope; params: ParamsOf<O> },
  outcome: HandlerOutcome,
  times: { attempts: number; receivedAt: Date; completedAt: Date },
): ResultEnvelope {
  const { envelope } = request;
  return {
    requestId: envelope.requestId,
    operation: request.operation,
    status: outcome.status,
    params: request.params,
    response: outcome.response,
    vendor: outcome.vendor,
    attempts: times.attempts,
    receivedAt: times.receivedAt.toISOString(),
    completedAt: times.completedAt.toISOString(),
    ...(envelope.requestedAt === undefined ? {} : { requestedAt: envelope.requestedAt }),
    ...(envelope.source === undefined ? {} : { source: envelope.source }),
    ...(envelope.metadata === undefined ? {} : { metadata: envelope.metadata }),
    origin: request.origin,
    ...(outcome.searchId === undefined ? {} : { searchId: outcome.searchId }),
  };
}

/** The dead letter of a request, carrying what of it could be read (`request`). */
export function errorEnvelope(
  failed: {
    operation: Operation;
    origin: Origin;
    request: Record<string, unknown>;
    requestId: string | null;
  },
  error: AppError,
  details: { attempts: number; failedAt: Date; maxRawBytes: number },
): ErrorEnvelope {
  const { request } = failed;
  const metadata =
    typeof request.metadata === 'object' && request.metadata !== null && !Array.isArray(request.metadata)
      ? stringValues(request.metadata as Record<string, unknown>)
      : undefined;
  const message =
    request.rawTruncated === true
      ? `${error.message}; the dead letter carries ${truncationNote(details.maxRawBytes, Number(request.rawBytes))}`
      : error.message;
  return {
    requestId: failed.requestId,
    operation: failed.operation,
    attempts: details.attempts,
    failedAt: details.failedAt.toISOString(),
    error: {
      kind: error.kind,
      message,
      retryable: error.retryable,
      ...(error.httpStatus === undefined ? {} : { httpStatus: error.httpStatus }),
      ...(error.code === undefined ? {} : { code: error.code }),
    },
    request,
    origin: failed.origin,
    ...(metadata ? { metadata } : {}),
  };
}

function stringValues(value: Record<string, unknown>): Record<string, string> | undefined {
  const entries = Object.entries(value).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  return entries.length === Object.keys(value).length ? Object.fromEntries(entries) : undefined;
}
