import type { FilterCriteria } from './filters.js';
import type { DecodedRecord } from './records.js';
import { namesOf, scan, type AuditContext, type OnScanStart, type ScanSummary } from './scan.js';
import type { TopicSelection } from './topics.js';
import { TRAIL_KINDS, trailComparator } from './trail.js';
import type { Window } from './window.js';

/**
 * Reads that end in a list rather than a stream: the trail of a request and one message by
 * its coordinates. `replay --request-id` and the console share them.
 */
export async function collectMatches(
  ctx: AuditContext,
  request: { selection: TopicSelection; window: Window; filter: FilterCriteria; onStart?: OnScanStart },
): Promise<{ records: DecodedRecord[]; summary: ScanSummary }> {
  const records: DecodedRecord[] = [];
  const summary = await scan(ctx, {
    ...request,
    onMatch: (record) => {
      records.push(record);
      return Promise.resolve();
    },
  });
  return { records, summary };
}

/** Every message of the requestIds across the prefix's topics, in trail order. */
export async function readTrail(
  ctx: AuditContext,
  window: Window,
  filter: FilterCriteria,
  onStart?: OnScanStart,
): Promise<{ records: DecodedRecord[]; summary: ScanSummary }> {
  const selection = { kinds: TRAIL_KINDS, operations: filter.operations, lenient: true };
  const found = await collectMatches(ctx, { selection, window, filter, onStart });
  found.records.sort(trailComparator(namesOf(ctx)));
  return found;
}

/** `<topic>/<partition>/<offset>`, as in `origin` and the x-redrive-of header. */
export interface Coordinates {
  topic: string;
  partition: number;
  offset: number;
}

export function parseCoordinates(text: string): Coordinates | undefined {
  const match = /^(.+)\/(\d+)\/(\d+)$/.exec(text);
  if (!match) return undefined;
  return { topic: match[1] ?? '', partition: Number(match[2]), offset: Number(match[3]) };
}

/** One message by its coordinates, or undefined when the offset holds none (a marker, deleted). */
export async function readOne(ctx: AuditContext, at: Coordinates): Promise<DecodedRecord | undefined> {
  const { records } = await collectMatches(ctx, {
    selection: { names: [at.topic] },
    window: { kind: 'offsets', partition: at.partition, fromOffset: at.offset, toOffset: at.offset + 1 },
    filter: {},
  });
  return records[0];
}
