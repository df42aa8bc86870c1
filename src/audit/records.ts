import type { IHeaders } from '../kafka/client.js';
import type { ValueCodec } from '../producers/value-codec.js';

/** A message as read, bytes untouched (what a republish sends on). */
export interface RawRecord {
  topic: string;
  partition: number;
  offset: string;
  /** Milliseconds since the epoch, as Kafka stores it. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}

/** A message with its value decoded, or the reason it could not be. */
export interface DecodedRecord {
  source: RawRecord;
  key: string | null;
  headers: Record<string, string | string[]>;
  /** The decoded JSON value (null for a tombstone); undefined when `error` is set. */
  value: unknown;
  error?: string;
}

/**
 * Never throws: an audit must show a value it cannot read (bad JSON, an unknown schema id,
 * a registry that failed) rather than stop on it.
 */
export async function decodeRecord(codec: ValueCodec, source: RawRecord): Promise<DecodedRecord> {
  const base = {
    source,
    key: source.key === null ? null : source.key.toString('utf8'),
    headers: decodeHeaders(source.headers),
  };
  if (source.value === null) return { ...base, value: null };
  try {
    return { ...base, value: await codec.decode(source.value) };
  } catch (error) {
    return { ...base, value: undefined, error: error instanceof Error ? error.message : String(error) };
  }
}

export function decodeHeaders(headers: IHeaders): Record<string, string | string[]> {
  const decoded: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    decoded[name] = Array.isArray(value) ? value.map((v) => v.toString()) : value.toString();
  }
  return decoded;
}

/** A member of a decoded JSON object value, when the value is one. */
export function member(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined;
}

export function firstHeader(record: DecodedRecord, name: string): string | undefined {
  const value = record.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
