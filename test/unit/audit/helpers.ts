import type { DecodedRecord, RawRecord } from '../../../src/audit/records.js';

/** A decoded record with sensible defaults; `value` is the decoded JSON. */
export function record(
  overrides: Omit<Partial<RawRecord>, 'value'> & { value?: unknown; error?: string } = {},
): DecodedRecord {
  const { value, error, ...raw } = overrides;
  const source: RawRecord = {
    topic: 't.results.vehicle',
    partition: 0,
    offset: '0',
    timestamp: Date.parse('2026-11-21T10:00:00Z'),
    key: Buffer.from('ABC1D23'),
    value: Buffer.from(JSON.stringify(value ?? null)),
    headers: {},
    ...raw,
  };
  const headers = Object.fromEntries(
    Object.entries(source.headers).map(([k, v]) => [k, Array.isArray(v) ? v.map(String) : String(v)]),
  );
  return {
    source,
    key: source.key?.toString() ?? null,
    headers,
    value: error === undefined ? value : undefined,
    ...(error === undefined ? {} : { error }),
  };
}
