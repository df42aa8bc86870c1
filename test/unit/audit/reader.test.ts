import { EventEmitter } from 'node:events';
import type { Batch, Consumer, ConsumerRunConfig } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { readRanges, type ReaderDeps } from '../../../src/audit/reader.js';
import type { RawRecord } from '../../../src/audit/records.js';

const TOPIC = 'gw.results.vehicle';
const END = 10;

interface CrashPlan {
  restart: boolean;
}

/**
 * A kafkajs consumer reduced to what the reader uses, with kafkajs's behaviour where it
 * matters here: a crash in the first join disconnects the group (seek then throws) and
 * `run()` still resolves; a restarting crash joins again a moment later.
 */
class FakeConsumer {
  readonly events = { GROUP_JOIN: 'join', CRASH: 'crash', END_BATCH_PROCESS: 'end' };
  private readonly emitter = new EventEmitter();
  private joined = false;
  private position = 0;
  private eachBatch: ConsumerRunConfig['eachBatch'];
  joins = 0;

  constructor(private readonly crashes: CrashPlan[]) {}

  on(event: string, listener: (e: { payload: unknown }) => void): () => void {
    this.emitter.on(event, listener);
    return () => this.emitter.off(event, listener);
  }
  connect = (): Promise<void> => Promise.resolve();
  subscribe = (): Promise<void> => Promise.resolve();
  disconnect = (): Promise<void> => {
    this.joined = false;
    return Promise.resolve();
  };
  pause = (): void => undefined;

  seek({ offset }: { offset: string }): void {
    if (!this.joined)
      throw new Error('Consumer group was not initialized, consumer#run must be called first');
    this.position = Number(offset);
  }

  run(config: ConsumerRunConfig): Promise<void> {
    this.eachBatch = config.eachBatch;
    this.start();
    return Promise.resolve();
  }

  private start(): void {
    const crash = this.crashes.shift();
    if (crash) {
      this.emitter.emit('crash', { payload: { error: new Error('join timed out'), restart: crash.restart } });
      if (crash.restart)
        setTimeout(() => {
          this.start();
        }, 5);
      return;
    }
    this.joined = true;
    this.joins += 1;
    this.emitter.emit('join', { payload: {} });
    setTimeout(() => void this.fetch(), 5);
  }

  private async fetch(): Promise<void> {
    if (!this.joined) return;
    const first = this.position;
    const messages = Array.from({ length: END - first }, (_, k) => ({
      offset: String(first + k),
      timestamp: '0',
      key: null,
      value: Buffer.from(`m${first + k}`),
      headers: {},
    }));
    const batch = { topic: TOPIC, partition: 0, messages } as unknown as Batch;
    await this.eachBatch?.({ batch } as unknown as Parameters<
      NonNullable<ConsumerRunConfig['eachBatch']>
    >[0]);
    this.emitter.emit('end', {
      payload: { topic: TOPIC, partition: 0, firstOffset: String(first), lastOffset: String(END - 1) },
    });
  }
}

function depsWith(consumer: FakeConsumer): ReaderDeps {
  return {
    kafka: { consumer: () => consumer as unknown as Consumer },
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
  output: { idleTimeoutMs: number; writeMs: number } = { idleTimeoutMs: 2_000, writeMs: 0 },
): Promise<{ records: RawRecord[]; delivered: number }> {
  const records: RawRecord[] = [];
  const summary = await readRanges(depsWith(consumer), {
    ranges: [{ topic: TOPIC, partition: 0, start: 3, end: END }],
    onRecord: async (record) => {
      records.push(record);
      if (output.writeMs > 0) await new Promise((resolve) => setTimeout(resolve, output.writeMs));
    },
    idleTimeoutMs: output.idleTimeoutMs,
  });
  return { records, delivered: summary.delivered };
}

describe('readRanges with a slow reader of its output', () => {
  it('reads to the end though the whole batch takes longer to write than the idle timeout', async () => {
    // Seven records at 40 ms each: 280 ms in one batch, against a 100 ms idle timeout.
    const { records } = await read(new FakeConsumer([]), { idleTimeoutMs: 100, writeMs: 40 });
    expect(records.map((r) => r.offset)).toEqual(['3', '4', '5', '6', '7', '8', '9']);
  });
});

describe('readRanges when the consumer crashes', () => {
  it('reads the whole range once after a retriable crash in the first join', async () => {
    const consumer = new FakeConsumer([{ restart: true }]);
    const { records, delivered } = await read(consumer);
    expect(records.map((r) => r.offset)).toEqual(['3', '4', '5', '6', '7', '8', '9']);
    expect(delivered).toBe(7);
    expect(consumer.joins).toBe(1);
  });

  it("fails with the crash's error, and no stray rejection, when kafkajs will not restart", async () => {
    const stray: unknown[] = [];
    const onStray = (reason: unknown) => stray.push(reason);
    process.on('unhandledRejection', onStray);
    try {
      await expect(read(new FakeConsumer([{ restart: false }]))).rejects.toThrow('join timed out');
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(stray).toEqual([]);
    } finally {
      process.off('unhandledRejection', onStray);
    }
  });
});
