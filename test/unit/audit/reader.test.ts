import { EventEmitter } from 'node:events';
import type {
  Assignment,
  EofEvent,
  LibrdKafkaError,
  Message,
  MessageHeader,
} from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import {
  readRanges,
  type RangeConsumer,
  type ReaderDeps,
  type ReadSummary,
} from '../../../src/audit/reader.js';
import type { RawRecord } from '../../../src/audit/records.js';

const TOPIC = 'gw.results.vehicle';

/** One partition of the fake: offsets holding a message, and the partition's end. */
interface FakePartition {
  /** Offsets that hold a message (any other offset below `end` is a marker or aborted). */
  records: number[];
  /** The partition's end: past the last record when the last offsets are transaction markers. */
  end: number;
  /** Headers of the message at an offset, as the client gives them (a list, one per header). */
  headers?: Record<number, MessageHeader[]>;
}

/**
 * The client's lower-level consumer reduced to what the reader uses, with its behaviour where it
 * matters here: a consume hands over what each assigned partition holds from its position, and
 * reports a partition's end (the offset after its last record, markers included) once, when the
 * position reaches it, before it hands the batch over, as librdkafka's consume(n) does.
 */
class FakeConsumer extends EventEmitter {
  assigned: Assignment[] = [];
  consumes = 0;
  connected = false;
  disconnects = 0;
  private readonly positions = new Map<number, { next: number; eofSent: boolean }>();

  /** `failWith`: the next consume fails with this message. */
  constructor(
    private readonly partitions: FakePartition[],
    private failWith?: string,
  ) {
    super();
  }

  connect(_options: unknown, cb: (error: LibrdKafkaError | null) => void): this {
    this.connected = true;
    cb(null);
    return this;
  }
  disconnect(cb: () => void): this {
    this.connected = false;
    this.disconnects += 1;
    cb();
    return this;
  }
  isConnected(): boolean {
    return this.connected;
  }
  /** What committed() answers per partition; -1001 is librdkafka's "none". */
  committedAt = -1001;
  committedAsked: { topic: string; partition: number; connected: boolean }[] = [];
  committed(
    toppars: { topic: string; partition: number }[],
    _timeoutMs: number,
    cb: (
      error: LibrdKafkaError | null,
      offsets: { topic: string; partition: number; offset: number }[],
    ) => void,
  ): void {
    for (const t of toppars) this.committedAsked.push({ ...t, connected: this.connected });
    cb(
      null,
      toppars.map((t) => ({ ...t, offset: this.committedAt })),
    );
  }
  assign(assignments: Assignment[]): this {
    this.assigned = assignments;
    for (const a of assignments) {
      this.positions.set(a.partition, { next: 'offset' in a ? a.offset : 0, eofSent: false });
    }
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
      const batch: Message[] = [];
      for (const [partition, position] of this.positions) {
        const { records, end, headers = {} } = this.partitions[partition] ?? { records: [], end: 0 };
        const left = records.filter((offset) => offset >= position.next);
        const taken = left.slice(0, count - batch.length);
        batch.push(...taken.map((offset) => message(partition, offset, headers[offset])));
        const last = taken.at(-1);
        if (taken.length === left.length && position.next <= end) position.next = end;
        else if (last !== undefined) position.next = last + 1;
        if (position.next === end && !position.eofSent) {
          position.eofSent = true;
          const eof: EofEvent = { topic: TOPIC, partition, offset: end };
          this.emit('partition.eof', eof);
        }
      }
      cb(null, batch);
    }, 1);
  }
}

function message(partition: number, offset: number, headers?: MessageHeader[]): Message {
  return {
    topic: TOPIC,
    partition,
    offset,
    timestamp: 1_700_000_000_000 + offset,
    key: Buffer.from(`k${offset}`),
    value: Buffer.from(`m${offset}`),
    size: 2,
    ...(headers === undefined ? {} : { headers }),
  };
}

interface Recorded {
  deps: ReaderDeps;
  deletedGroups: string[][];
  warnings: string[];
}

function depsWith(consumer: FakeConsumer): Recorded {
  const deletedGroups: string[][] = [];
  const warnings: string[] = [];
  const deps: ReaderDeps = {
    openConsumer: () => consumer as unknown as RangeConsumer,
    admin: {
      deleteGroups: (groupIds: string[]) => {
        deletedGroups.push(groupIds);
        return Promise.resolve([]);
      },
    },
    clientId: 'gw.auditor',
    serviceGroupId: 'gw.service',
    warn: (line) => warnings.push(line),
  };
  return { deps, deletedGroups, warnings };
}

async function read(
  consumer: FakeConsumer,
  range: { start: number; end: number },
  output: { idleTimeoutMs: number; writeMs: number } = { idleTimeoutMs: 2_000, writeMs: 0 },
): Promise<{ records: RawRecord[]; delivered: number; unfinished: number }> {
  const records: RawRecord[] = [];
  const summary = await readRanges(depsWith(consumer).deps, {
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
    const consumer = new FakeConsumer([{ records: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], end: 10 }]);
    const { records, delivered, unfinished } = await read(consumer, { start: 3, end: 10 });
    expect(consumer.assigned).toEqual([{ topic: TOPIC, partition: 0, offset: 3 }]);
    expect(offsets(records)).toEqual(['3', '4', '5', '6', '7', '8', '9']);
    expect(delivered).toBe(7);
    expect(unfinished).toBe(0);
  });

  it('ends a range whose last offsets are transaction markers at the end of the partition', async () => {
    // Offsets 5 and 6: an aborted record and its abort marker, never delivered; 7: a commit marker.
    // Only the client's partition.eof at 8 says the range is read (the idle timeout would say
    // unfinished).
    const consumer = new FakeConsumer([{ records: [0, 1, 2, 3, 4], end: 8 }]);
    const startedAt = Date.now();
    const { records, unfinished } = await read(
      consumer,
      { start: 0, end: 8 },
      { idleTimeoutMs: 5_000, writeMs: 0 },
    );
    expect(offsets(records)).toEqual(['0', '1', '2', '3', '4']);
    expect(unfinished).toBe(0);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
  });

  it("a partition's end ends only that partition's range", async () => {
    // Partition 0 reaches its end (markers at 2 and 3) at once; partition 1 has more to read.
    const consumer = new FakeConsumer([
      { records: [0, 1], end: 4 },
      { records: [0, 1, 2, 3, 4, 5], end: 6 },
    ]);
    const seen: string[] = [];
    const summary = await readRanges(depsWith(consumer).deps, {
      ranges: [
        { topic: TOPIC, partition: 0, start: 0, end: 4 },
        { topic: TOPIC, partition: 1, start: 2, end: 6 },
      ],
      onRecord: (record) => {
        seen.push(`${record.partition}/${record.offset}`);
        return Promise.resolve();
      },
    });
    expect(consumer.assigned).toEqual([
      { topic: TOPIC, partition: 0, offset: 0 },
      { topic: TOPIC, partition: 1, offset: 2 },
    ]);
    expect(seen).toEqual(['0/0', '0/1', '1/2', '1/3', '1/4', '1/5']);
    expect(summary.unfinished).toEqual([]);
  });

  it('never delivers what lies past the range, and stops there', async () => {
    const consumer = new FakeConsumer([{ records: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], end: 10 }]);
    const { records, unfinished } = await read(consumer, { start: 2, end: 5 });
    expect(offsets(records)).toEqual(['2', '3', '4']);
    expect(unfinished).toBe(0);
  });

  it("hands each record over with the client's key, value, timestamp and headers", async () => {
    const consumer = new FakeConsumer([
      {
        records: [0],
        end: 1,
        headers: { 0: [{ 'content-type': Buffer.from('application/json') }, { hop: 'a' }, { hop: 'b' }] },
      },
    ]);
    const { records } = await read(consumer, { start: 0, end: 1 });
    expect(records).toEqual([
      {
        topic: TOPIC,
        partition: 0,
        offset: '0',
        timestamp: 1_700_000_000_000,
        key: Buffer.from('k0'),
        value: Buffer.from('m0'),
        // The client's header list as a map; a repeated header keeps every value, in order.
        headers: {
          'content-type': Buffer.from('application/json'),
          hop: [Buffer.from('a'), Buffer.from('b')],
        },
      },
    ]);
  });

  it('needs no consumer for empty ranges', async () => {
    const consumer = new FakeConsumer([{ records: [0], end: 1 }]);
    const summary = await readRanges(depsWith(consumer).deps, {
      ranges: [{ topic: TOPIC, partition: 0, start: 1, end: 1 }],
      onRecord: () => Promise.reject(new Error('nothing to deliver')),
    });
    expect(summary).toEqual({
      groupId: null,
      delivered: 0,
      committedOffsets: 0,
      unfinished: [],
      aborted: false,
    });
    expect(consumer.consumes).toBe(0);
  });

  it('leaves nothing behind: the consumer disconnected, its end listener gone, the throwaway group deleted', async () => {
    const consumer = new FakeConsumer([{ records: [0, 1], end: 2 }]);
    const recorded = depsWith(consumer);
    const summary = await readRanges(recorded.deps, {
      ranges: [{ topic: TOPIC, partition: 0, start: 0, end: 2 }],
      onRecord: () => Promise.resolve(),
    });
    expect(summary.groupId).toMatch(/^gw\.auditor\.audit\./);
    expect(consumer.disconnects).toBe(1);
    expect(consumer.listenerCount('partition.eof')).toBe(0);
    expect(recorded.deletedGroups).toEqual([[summary.groupId]]);
    expect(recorded.warnings).toEqual([]);
    // The group's offsets were asked by the consumer itself, while still connected.
    expect(consumer.committedAsked).toEqual([{ topic: TOPIC, partition: 0, connected: true }]);
  });

  it('counts and warns of an offset the throwaway group holds', async () => {
    const consumer = new FakeConsumer([{ records: [0, 1], end: 2 }]);
    consumer.committedAt = 2;
    const recorded = depsWith(consumer);
    const summary = await readRanges(recorded.deps, {
      ranges: [{ topic: TOPIC, partition: 0, start: 0, end: 2 }],
      onRecord: () => Promise.resolve(),
    });
    expect(summary.committedOffsets).toBe(1);
    expect(recorded.warnings).toEqual([
      `the throwaway consumer group ${summary.groupId} holds 1 committed offsets`,
    ]);
  });
});

describe('readRanges with a slow reader of its output', () => {
  it('reads to the end though the whole batch takes longer to write than the idle timeout', async () => {
    // Seven records at 40 ms each: 280 ms in one batch, against a 100 ms idle timeout.
    const consumer = new FakeConsumer([{ records: [3, 4, 5, 6, 7, 8, 9], end: 10 }]);
    const { records } = await read(consumer, { start: 3, end: 10 }, { idleTimeoutMs: 100, writeMs: 40 });
    expect(offsets(records)).toEqual(['3', '4', '5', '6', '7', '8', '9']);
  });

  it('gives up on a partition that makes no progress for the idle timeout, and says so', async () => {
    // The records of the range were deleted under us; the partition's end stays out of reach.
    const consumer = new FakeConsumer([{ records: [], end: 5 }]);
    const { records, unfinished } = await read(
      consumer,
      { start: 6, end: 10 },
      { idleTimeoutMs: 50, writeMs: 0 },
    );
    expect(records).toEqual([]);
    expect(unfinished).toBe(1);
    expect(consumer.consumes).toBeGreaterThan(1);
  });
});

describe('readRanges when stopped', () => {
  async function readUntilAborted(
    consumer: FakeConsumer,
    abortAfter: number,
  ): Promise<{ summary: ReadSummary; records: RawRecord[] }> {
    const stop = new AbortController();
    const records: RawRecord[] = [];
    const summary = await readRanges(depsWith(consumer).deps, {
      ranges: [{ topic: TOPIC, partition: 0, start: 0, end: 6 }],
      signal: stop.signal,
      onRecord: (record) => {
        records.push(record);
        if (records.length === abortAfter) stop.abort();
        return Promise.resolve();
      },
    });
    return { summary, records };
  }

  it('stops at the next record once aborted, saying where each partition was left', async () => {
    const consumer = new FakeConsumer([{ records: [0, 1, 2, 3, 4, 5], end: 6 }]);
    const { summary, records } = await readUntilAborted(consumer, 2);
    expect(offsets(records)).toEqual(['0', '1']);
    expect(summary.aborted).toBe(true);
    expect(summary.delivered).toBe(2);
    expect(summary.unfinished).toEqual([{ topic: TOPIC, partition: 0, offset: 2 }]);
    expect(consumer.disconnects).toBe(1);
  });

  it('reads nothing when aborted before it starts', async () => {
    const consumer = new FakeConsumer([{ records: [0, 1], end: 2 }]);
    const stop = new AbortController();
    stop.abort();
    const summary = await readRanges(depsWith(consumer).deps, {
      ranges: [{ topic: TOPIC, partition: 0, start: 0, end: 2 }],
      signal: stop.signal,
      onRecord: () => Promise.reject(new Error('nothing should be delivered')),
    });
    expect(summary).toMatchObject({ aborted: true, delivered: 0 });
    expect(summary.unfinished).toEqual([{ topic: TOPIC, partition: 0, offset: 0 }]);
    expect(consumer.consumes).toBe(0);
  });
});

describe('readRanges when the client fails', () => {
  it("fails with the client's error, and no stray rejection", async () => {
    const stray: unknown[] = [];
    const onStray = (reason: unknown) => stray.push(reason);
    process.on('unhandledRejection', onStray);
    try {
      const consumer = new FakeConsumer([{ records: [0, 1], end: 2 }], 'Local: Broker transport failure');
      await expect(read(consumer, { start: 0, end: 2 })).rejects.toThrow('Broker transport failure');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(stray).toEqual([]);
      expect(consumer.disconnects).toBe(1);
    } finally {
      process.off('unhandledRejection', onStray);
    }
  });
});

describe('readRanges when the output fails', () => {
  it("fails with onRecord's error, reads no further, and still cleans up", async () => {
    const consumer = new FakeConsumer([{ records: [0, 1, 2, 3], end: 4 }]);
    const recorded = depsWith(consumer);
    const delivered: string[] = [];
    await expect(
      readRanges(recorded.deps, {
        ranges: [{ topic: TOPIC, partition: 0, start: 0, end: 4 }],
        onRecord: (record) => {
          delivered.push(record.offset);
          return record.offset === '1' ? Promise.reject(new Error('stdout closed')) : Promise.resolve();
        },
      }),
    ).rejects.toThrow('stdout closed');
    expect(delivered).toEqual(['0', '1']);
    expect(consumer.disconnects).toBe(1);
    expect(consumer.listenerCount('partition.eof')).toBe(0);
    expect(recorded.deletedGroups).toHaveLength(1);
  });
});
