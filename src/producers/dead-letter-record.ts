import { createHash } from 'node:crypto';
import type { ErrorEnvelope } from '../contract/envelopes.js';
import type { Correlation } from '../contract/envelopes.js';
import { recordForError, type OutputDeps, type OutputRecord } from './output-records.js';
import { isFramed, RegistryUnavailable } from './value-codec.js';

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
  const request = rawRequest(raw, maxRawBytes(deps.resultMaxBytes));
  const note =
    request.rawTruncated === true
      ? `; request replaced by ${truncationNote(maxRawBytes(deps.resultMaxBytes), raw?.length ?? 0)}`
      : '; request replaced by its raw bytes';
  const fallback: ErrorEnvelope = {
    ...error,
    error: { ...error.error, message: `${error.error.message.slice(0, 1_000)}${note}` },
    request,
  };
  return recordForError(deps, fallback, correlation);
}

/**
 * `{ raw: <base64> }`, or above `maxBytes` a prefix of the bytes with the whole value's sha256
 * and length, so that the dead letter fits the errors topic's message limit (contract.md).
 */
export function rawRequest(value: Buffer | null, maxBytes: number): Record<string, unknown> {
  const bytes = value ?? Buffer.alloc(0);
  if (bytes.length <= maxBytes) return { raw: bytes.toString('base64') };
  return {
    raw: bytes.subarray(0, maxBytes).toString('base64'),
    rawTruncated: true,
    rawBytes: bytes.length,
    rawSha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

export function truncationNote(kept: number, total: number): string {
  return `the first ${kept} of its ${total} raw bytes (rawSha256 and rawBytes describe the whole value)`;
}

/** Raw bytes a dead letter may carry: base64 grows them by 4/3, and the envelope needs room. */
export function maxRawBytes(resultMaxBytes: number): number {
  return Math.max(256, Math.floor(((resultMaxBytes - 16 * 1024) * 3) / 4));
}

function jsonBytes(value: Buffer): number {
  return isFramed(value) ? value.length - 5 : value.length;
}
