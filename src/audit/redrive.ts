import type { IHeaders } from '../kafka/client.js';
import { errorEnvelopeSchema } from '../contract/envelopes.js';
import type { TopicNames } from '../contract/operations.js';
import { firstHeader, type DecodedRecord } from './records.js';
import type { OutgoingMessage } from './republish.js';

/**
 * Turning a dead letter back into the request it failed on. The request goes to the topic and
 * partition it was read from (`origin`) with the dead letter's key — the service writes every message
 * with its request's key — so it is ordered with the key's other requests again. Its requestId
 * is unchanged: a request that had in fact been paid for reuses the stored outcome instead of
 * calling the vendor again (requests/idempotency.ts).
 *
 * The value: a dead letter carries `request` as it was decoded, re-encoded here as plain JSON
 * (the service reads plain and framed values alike, and the registry may not know request
 * subjects). A request that could not be read is carried as `{ raw: <base64> }`; those bytes
 * are republished unchanged — framing included — so that a failure of the moment (the registry
 * down while decoding) is retried on the very bytes upstream sent, and a truly malformed value
 * fails the same way again rather than being replaced by something upstream never wrote. A
 * request too large to be kept whole (`rawTruncated`) cannot be rebuilt, and is skipped.
 */
export const REDRIVE_HEADER = 'x-redrive-of';

export interface RedrivePlan {
  /** `<errors topic>/<partition>/<offset>`: the dead letter, also sent as REDRIVE_HEADER. */
  deadLetter: string;
  requestId: string | null;
  operation: string;
  errorKind: string;
  encoding: 'json' | 'raw';
  message: OutgoingMessage;
}

export type PlanResult = { ok: true; plan: RedrivePlan } | { ok: false; deadLetter: string; reason: string };

export function planRedrive(record: DecodedRecord, topics: TopicNames): PlanResult {
  const { topic, partition, offset } = record.source;
  const deadLetter = `${topic}/${partition}/${offset}`;
  const skip = (reason: string): PlanResult => ({ ok: false, deadLetter, reason });
  if (record.error !== undefined) return skip(`the dead letter could not be decoded: ${record.error}`);
  const parsed = errorEnvelopeSchema.safeParse(record.value);
  if (!parsed.success) return skip('not a dead letter (does not match the error envelope)');
  const envelope = parsed.data;
  const target = envelope.origin.topic;
  if (topics.operationOfRequestTopic(target) === undefined) {
    return skip(`origin.topic ${target} is not a request topic of this prefix`);
  }
  if (envelope.request.rawTruncated === true) {
    return skip(
      `the dead letter keeps only the first bytes of the request's ${String(envelope.request.rawBytes)} (rawTruncated): it cannot be rebuilt`,
    );
  }
  const value = requestBytes(envelope.request);
  if (value.bytes.length === 0) return skip('the original message had no value');
  const headers: IHeaders = { [REDRIVE_HEADER]: deadLetter };
  if (value.encoding === 'json') headers['content-type'] = 'application/json';
  const traceparent = firstHeader(record, 'traceparent');
  if (traceparent !== undefined) headers.traceparent = traceparent;
  return {
    ok: true,
    plan: {
      deadLetter,
      requestId: envelope.requestId,
      operation: envelope.operation,
      errorKind: envelope.error.kind,
      encoding: value.encoding,
      // Back to the partition it was read from: ordered with its key's other requests, whatever
      // partitioner the publisher used (the Java client's hash is not the only one).
      message: {
        topic: target,
        partition: envelope.origin.partition,
        key: record.source.key,
        value: value.bytes,
        headers,
      },
    },
  };
}

function requestBytes(request: Record<string, unknown>): { bytes: Buffer; encoding: 'json' | 'raw' } {
  const names = Object.keys(request);
  if (names.length === 1 && typeof request.raw === 'string') {
    return { bytes: Buffer.from(request.raw, 'base64'), encoding: 'raw' };
  }
  return { bytes: Buffer.from(JSON.stringify(request)), encoding: 'json' };
}

/** What a redrive line says about a plan (dry run) or a sent request. */
export function describePlan(plan: RedrivePlan): Record<string, unknown> {
  return {
    deadLetter: plan.deadLetter,
    requestId: plan.requestId,
    operation: plan.operation,
    errorKind: plan.errorKind,
    topic: plan.message.topic,
    key: plan.message.key?.toString('utf8') ?? null,
    encoding: plan.encoding,
    bytes: plan.message.value?.length ?? 0,
  };
}
