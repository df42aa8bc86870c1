import { EventEmitter } from 'node:events';
import type { LibrdKafkaError, Message } from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import { readRanges, type RangeConsumer, type ReaderDeps } from '../../../src/audit/reader.js';
import type { RawRecord } from '../../../src/audit/records.js';

const TOPIC = 'gw.results.vehicle';

/**
 * The client's lower-level consumer reduced to what the reader uses, with its behaviour where it
 * matters here: a consume hands over what the partition holds from its position, and reports
 * the end of a partition (at the offset after its last record, markers included) before it hands
 * the batch over, as librdkafka's consume(n) does.
 */
class FakeConsumer extends EventEmitter {
  private position = 0;
  assigned: { topic: string; partition: number; offset?: number }[] = [];
  consumes = 0;

  /**
   * `records`: offsets that hold a message; `end`: the partition's end (an offset after the
   * last record is a transaction marker); `failWith`: the next consume fails so.
   */
  constructor(
    private readonly records: number[],
    private readonly end: number,
    private failWith?: string,
  ) {
    super();
  }

  connect(_options: unknown, cb: (error: LibrdKafkaError | null) => void): this {
    cb(null);
    return this;
  }
  disconnect(cb: () => void): this {
    cb();
    return this;
  }
  isConnected(): boolean {
    return true;
  }
  assign(assignments: { topic: string; partition: number; offset?: number }[]): this {
    this.assigned = assignments;
    this.position = assignments[0]?.offset ?? 0;
    return this;
  }
  consume(count: number, cb: (error: LibrdKafkaError | null, messages: Message[]) => void): void {
    this.consumes += 1;
    setTimeout(() => {
      if (this.failWith !== undefined) {
        const error = Object.assign(new Error(this.failWith), { code: -195 }) as unknown as LibrdKafkaError;
        this.failWith = undefined;
        cb(error, []);
        return;
      }
      const batch = this.records
        .filter((offset) => offset >= this.position)
        .slice(0, count)
        .map((offset) => ({
          topic: TOPIC,
          partition: 0,
          offset,
          timestamp: 0,
          key: null,
          value: Buffer.from(`m${offset}`),
          size: 2,
        }));
      const next = batch.length > 0 ? (batch.at(-1)?.offset ?? 0) + 1 : this.position;
      this.position =
        batch.length === this.records.filter((o) => o >= this.position).length ? this.end : next;
      if (this.position === this.end)
        this.emit('partition.eof', { topic: TOPIC, partition: 0, offset: this.end });
      cb(null, batch);
    }, 1);
  }
}

function depsWith(consumer: FakeConsumer): ReaderDeps {
  return {
    openConsumer: () => consumer as unknown as RangeConsumer,
    admin: {
      fetchOffsets: () => Promise.resolve([]),
      deleteGroups: () => Promise.resolve([]),
    },
    clientId: 'gw.auditor',
    serviceGroupId: 'gw.service',
    warn: () => undefined,
  };
}

async function read(
  consumer: FakeConsumer,
  range: { start: number; end: number },
  output: { idleTimeoutMs: number; writeMs: number } = { idleTimeoutMs: 2_000, writeMs: 0 },
): Promise<{ records: RawRecord[]; delivered: number; unfinished: number }> {
  const records: RawRecord[] = [];
  const summary = await readRanges(depsWith(consumer), {
    ranges: [{ topic: TOPIC, partition: 0, ...range }],
    onRecord: async (record) => {
      records.push(record);
      if (output.writeMs > 0) await new Promise((resolve) => setTimeout(resolve, output.writeMs));
    },
    idleTimeoutMs: output.idleTimeoutMs,
  });
  return { records, delivered: summary.delivered, unfinished: summary.unfinished.length };
}

const offsets = (records: RawRecord[]): string[] => records.map((r) => r.offset);

describe('readRanges', () => {
  it('is assigned the range at its start and delivers each record of it once', async () => {
    const consumer = new FakeConsumer([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 10);
    const { records, delivered, unfinished } = await read(consumer, { start: 3, end: 10 });
    expect(consumer.assigned).toEqual([{ topic: TOPIC, partition: 0, offset: 3 }]);
    expect(offsets(records)).toEqual(['3', '4', '5', '6', '7', '8', '9']);
    expect(delivered).toBe(7);
    expect(unfinished).toBe(0);
  });

  it('ends a range whose last offsets are transaction markers at the end of the partition', async () => {
    // Offsets 5 and 6: an aborted record and a marker, never delivered; 7: the commit marker.
    const consumer = new FakeConsumer([0, 1, 2, 3, 4], 8);
    const { records, unfinished } = await read(
      consumer,
      { start: 0, end: 8 },
      { idleTimeoutMs: 500, writeMs: 0 },
    );
    expect(offsets(records)).toEqual(['0', '1', '2', '3', '4']);
    expect(unfinished).toBe(0);
  });

  it('never delivers what lies past the range, and stops there', async () => {
    const consumer = new FakeConsumer([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 10);
    const { records, unfinished } = await read(consumer, { start: 2, end: 5 });
    expect(offsets(records)).toEqual(['2', '3', '4']);
    expect(unfinished).toBe(0);
  });
});

describe('readRanges with a slow reader of its output', () => {
  it('reads to the end though the whole batch takes longer to write than the idle timeout', async () => {
    // Seven records at 40 ms each: 280 ms in one batch, against a 100 ms idle timeout.
    const consumer = new FakeConsumer([3, 4, 5, 6, 7, 8, 9], 10);
    const { records } = await read(consumer, { start: 3, end: 10 }, { idleTimeoutMs: 100, writeMs: 40 });
    expect(offsets(records)).toEqual(['3', '4', '5', '6', '7', '8', '9']);
  });

  it('gives up on a partition that makes no progress for the idle timeout, and says so', async () => {
    // The records below 8 were deleted under us; the partition's end stays out of reach.
    const consumer = new FakeConsumer([], 5);
    const { records, unfinished } = await read(
      consumer,
      { start: 6, end: 10 },
      { idleTimeoutMs: 50, writeMs: 0 },
    );
    expect(records).toEqual([]);
    expect(unfinished).toBe(1);
  });
});

describe('readRanges when the client fails', () => {
  it("fails with the client's error, and no stray rejection", async () => {
    const stray: unknown[] = [];
    const onStray = (reason: unknown) => stray.push(reason);
    process.on('unhandledRejection', onStray);
    try {
      const consumer = new FakeConsumer([0, 1], 2, 'Local: Broker transport failure');
      await expect(read(consumer, { start: 0, end: 2 })).rejects.toThrow('Broker transport failure');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(stray).toEqual([]);
    } finally {
      process.off('unhandledRejection', onStray);
    }
  });
});
