import type { Admin } from '../kafka/client.js';
import { AuditError, badArguments } from './errors.js';
import { KafkaJS } from '@confluentinc/kafka-javascript';

/**
 * What to read, as the user says it (a time window or an offset range), turned into one
 * half-open offset range [start, end) per partition before reading begins. Fixing the ends up
 * front is what lets a replay stop: it never waits for messages written after it started.
 *
 * Time windows are half-open too: a message stamped exactly `from` is in, one stamped exactly
 * `to` is out. Kafka's time index gives the first offset stamped at or after a time, and a
 * window is the offsets between its two ends' offsets: consecutive windows [a, b) and [b, c)
 * show every message once, a producer's out-of-order timestamp included. Such a message (rare:
 * clocks apart, or a producer setting old timestamps) is shown in the window the log puts it
 * in, with its own timestamp, and counted as stamped outside the window.
 */
export type Window =
  | { kind: 'time'; from?: Date | undefined; to?: Date | undefined }
  | {
      kind: 'offsets';
      partition?: number | undefined;
      fromOffset?: number | undefined;
      toOffset?: number | undefined;
    };

export interface PartitionRange {
  topic: string;
  partition: number;
  /** First offset to read. */
  start: number;
  /** First offset not to read: `to`'s offset, or the end of the partition when reading started. */
  end: number;
}

const READ_COMMITTED = KafkaJS.IsolationLevel.READ_COMMITTED;

export type OffsetAdmin = Pick<Admin, 'fetchTopicOffsets' | 'fetchTopicOffsetsByTimestamp'>;

export function checkWindow(window: Window): void {
  if (window.kind === 'time') {
    const { from, to } = window;
    for (const [name, date] of [
      ['--from', from],
      ['--to', to],
    ] as const) {
      if (date !== undefined && Number.isNaN(date.getTime()))
        throw badArguments(`${name} is not a valid time`);
    }
    if (from && to && from.getTime() >= to.getTime()) {
      const what = from.getTime() === to.getTime() ? 'empty' : 'reversed';
      throw badArguments(
        `the window is ${what}: --from ${from.toISOString()} must be before --to ${to.toISOString()}`,
      );
    }
    return;
  }
  const { fromOffset, toOffset } = window;
  if (fromOffset !== undefined && toOffset !== undefined && fromOffset >= toOffset) {
    const what = fromOffset === toOffset ? 'empty' : 'reversed';
    throw badArguments(
      `the offset range is ${what}: --from-offset ${fromOffset} must be below --to-offset ${toOffset}`,
    );
  }
}

/**
 * The per-partition ranges of every topic. Ends come from ListOffsets asked read_committed,
 * i.e. the last stable offset: everything below it is committed or aborted, so the reader never
 * waits on an open transaction.
 */
export async function resolveRanges(
  deps: { admin: OffsetAdmin },
  topics: readonly string[],
  window: Window,
): Promise<PartitionRange[]> {
  checkWindow(window);
  const perTopic = await Promise.all(topics.map((topic) => rangesOfTopic(deps.admin, topic, window)));
  return perTopic.flat();
}

async function rangesOfTopic(admin: OffsetAdmin, topic: string, window: Window): Promise<PartitionRange[]> {
  const bounds = await admin.fetchTopicOffsets(topic, { isolationLevel: READ_COMMITTED });
  const low = new Map(bounds.map((b) => [b.partition, Number(b.low)]));
  const high = new Map(bounds.map((b) => [b.partition, Number(b.high)]));
  const clamp = (partition: number, start: number, end: number): PartitionRange => {
    const first = Math.max(start, low.get(partition) ?? 0);
    const last = Math.min(end, high.get(partition) ?? 0);
    return { topic, partition, start: Math.min(first, last), end: last };
  };
  const partitions = bounds.map((b) => b.partition).sort((a, b) => a - b);
  if (window.kind === 'offsets') {
    const chosen = window.partition === undefined ? partitions : [window.partition];
    if (window.partition !== undefined && !high.has(window.partition)) {
      throw new AuditError(
        'BAD_ARGUMENTS',
        `topic ${topic} has no partition ${window.partition} (it has ${partitions.length})`,
      );
    }
    return chosen.map((p) =>
      clamp(p, window.fromOffset ?? low.get(p) ?? 0, window.toOffset ?? high.get(p) ?? 0),
    );
  }
  const starts = window.from ? await offsetsAt(admin, topic, window.from) : low;
  const ends = window.to ? await offsetsAt(admin, topic, window.to) : high;
  return partitions.map((p) => clamp(p, starts.get(p) ?? 0, ends.get(p) ?? 0));
}

/** First offset stamped at or after `time`, per partition; the end when there is none. */
async function offsetsAt(admin: OffsetAdmin, topic: string, time: Date): Promise<Map<number, number>> {
  const offsets = await admin.fetchTopicOffsetsByTimestamp(topic, time.getTime(), {
    isolationLevel: READ_COMMITTED,
  });
  return new Map(offsets.map((o) => [o.partition, Number(o.offset)]));
}

export function totalMessages(ranges: readonly PartitionRange[]): number {
  return ranges.reduce((sum, r) => sum + (r.end - r.start), 0);
}
