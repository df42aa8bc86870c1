import { createHash } from 'node:crypto';

/** A request's raw bytes in its dead letter, for messages that could not be read or would not fit. */

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
