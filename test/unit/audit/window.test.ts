import { KafkaJS } from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import { AuditError } from '../../../src/audit/errors.js';
import { checkWindow, resolveRanges, totalMessages, type OffsetAdmin } from '../../../src/audit/window.js';

type Isolation = KafkaJS.IsolationLevel | undefined;

/**
 * A fake admin over one topic whose partitions hold messages stamped at the given times
 * (offset = index), low offsets as given (records deleted by retention below them). `asked`
 * keeps the isolation level of each ListOffsets request.
 */
function fakeAdmin(
  partitions: { stamps: number[]; low?: number }[],
): OffsetAdmin & { asked: { call: string; isolation: Isolation }[] } {
  const asked: { call: string; isolation: Isolation }[] = [];
  return {
    asked,
    fetchTopicOffsets: (topic, options) => {
      asked.push({ call: 'fetchTopicOffsets', isolation: options?.isolationLevel });
      return topic === 'orders'
        ? Promise.resolve(
            partitions.map((p, partition) => ({
              partition,
              offset: String(p.stamps.length),
              high: String(p.stamps.length),
              low: String(p.low ?? 0),
            })),
          )
        : Promise.reject(new Error(`unknown ${topic}`));
    },
    // Kafka: the first offset stamped at or after the time; the client: the high offset when none.
    fetchTopicOffsetsByTimestamp: (_topic, timestamp, options) => {
      asked.push({ call: 'fetchTopicOffsetsByTimestamp', isolation: options?.isolationLevel });
      return Promise.resolve(
        partitions.map((p, partition) => {
          const index = p.stamps.findIndex((s, offset) => offset >= (p.low ?? 0) && s >= (timestamp ?? 0));
          return { partition, offset: String(index === -1 ? p.stamps.length : index) };
        }),
      );
    },
  };
}

const T = (seconds: number) => new Date(Date.UTC(2026, 10, 21, 10, 0, seconds));
const stamps = (...seconds: number[]) => seconds.map((s) => T(s).getTime());

describe('window → per-partition offset ranges', () => {
  const admin = fakeAdmin([{ stamps: stamps(0, 10, 20, 30) }, { stamps: stamps(5, 25) }, { stamps: [] }]);

  it('starts at the first message stamped at or after --from and ends before the one at --to', async () => {
    const ranges = await resolveRanges({ admin }, ['orders'], { kind: 'time', from: T(10), to: T(30) });
    expect(ranges).toEqual([
      { topic: 'orders', partition: 0, start: 1, end: 3 },
      { topic: 'orders', partition: 1, start: 1, end: 2 },
      { topic: 'orders', partition: 2, start: 0, end: 0 },
    ]);
    expect(totalMessages(ranges)).toBe(3);
  });

  it('reads from the beginning without --from and to the end at start without --to', async () => {
    const ranges = await resolveRanges({ admin }, ['orders'], { kind: 'time' });
    expect(ranges.map((r) => [r.start, r.end])).toEqual([
      [0, 4],
      [0, 2],
      [0, 0],
    ]);
    const future = await resolveRanges({ admin }, ['orders'], { kind: 'time', from: T(26), to: T(999) });
    expect(future.map((r) => [r.start, r.end])).toEqual([
      [3, 4],
      [2, 2],
      [0, 0],
    ]);
  });

  it('clamps offset ranges to what the partition still holds', async () => {
    const trimmed = fakeAdmin([{ stamps: stamps(0, 1, 2, 3, 4, 5), low: 2 }]);
    const ranges = await resolveRanges({ admin: trimmed }, ['orders'], {
      kind: 'offsets',
      partition: 0,
      fromOffset: 0,
      toOffset: 100,
    });
    expect(ranges).toEqual([{ topic: 'orders', partition: 0, start: 2, end: 6 }]);
    const all = await resolveRanges({ admin }, ['orders'], { kind: 'offsets', fromOffset: 1, toOffset: 3 });
    expect(all.map((r) => [r.partition, r.start, r.end])).toEqual([
      [0, 1, 3],
      [1, 1, 2],
      [2, 0, 0],
    ]);
  });

  it('asks every offset read_committed: a range ends at the last stable offset, never inside an open transaction', async () => {
    // The client's admin asks read_uncommitted unless told otherwise: a range would then end at
    // the high watermark, past an open transaction's records the reader never gets.
    const asking = fakeAdmin([{ stamps: stamps(0, 10, 20) }]);
    await resolveRanges({ admin: asking }, ['orders'], { kind: 'time', from: T(5), to: T(15) });
    await resolveRanges({ admin: asking }, ['orders'], { kind: 'offsets', fromOffset: 1 });
    expect(asking.asked).toEqual([
      { call: 'fetchTopicOffsets', isolation: KafkaJS.IsolationLevel.READ_COMMITTED },
      { call: 'fetchTopicOffsetsByTimestamp', isolation: KafkaJS.IsolationLevel.READ_COMMITTED },
      { call: 'fetchTopicOffsetsByTimestamp', isolation: KafkaJS.IsolationLevel.READ_COMMITTED },
      { call: 'fetchTopicOffsets', isolation: KafkaJS.IsolationLevel.READ_COMMITTED },
    ]);
  });

  it('rejects a partition the topic does not have', async () => {
    await expect(resolveRanges({ admin }, ['orders'], { kind: 'offsets', partition: 7 })).rejects.toThrow(
      /orders has no partition 7/,
    );
  });

  it('rejects reversed and empty windows before asking the broker', () => {
    const reversed = () => {
      checkWindow({ kind: 'time', from: T(10), to: T(5) });
    };
    expect(reversed).toThrow(AuditError);
    expect(reversed).toThrow(/reversed/);
    expect(() => {
      checkWindow({ kind: 'time', from: T(10), to: T(10) });
    }).toThrow(/empty/);
    expect(() => {
      checkWindow({ kind: 'offsets', fromOffset: 5, toOffset: 5 });
    }).toThrow(/empty/);
    expect(() => {
      checkWindow({ kind: 'offsets', fromOffset: 6, toOffset: 5 });
    }).toThrow(/reversed/);
  });
});
