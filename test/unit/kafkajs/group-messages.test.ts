/**
 * kafkajs's grouping of a produce call's messages by partition, as patched
 * (patches/kafkajs+2.2.4+012+group-messages-linear.patch: appended in place rather than copying
 * a partition's array for every message). Each partition must get its messages in the order
 * given, whatever the partitioner decides, and nothing else.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

interface Message {
  key: string;
  value: string;
  partition?: number;
}
type Partitioner = (args: { topic: string; partitionMetadata: unknown[]; message: Message }) => number;
type Group = (args: {
  topic: string;
  partitionMetadata: unknown[];
  messages: Message[];
  partitioner: Partitioner;
}) => Record<string, Message[]>;

const groupMessagesPerPartition = require('kafkajs/src/producer/groupMessagesPerPartition') as Group;
const { Partitioners } = require('kafkajs') as { Partitioners: { DefaultPartitioner: () => Partitioner } };

const partitionMetadata = Array.from({ length: 6 }, (_, partitionId) => ({ partitionId, leader: 0 }));

describe('kafkajs groupMessagesPerPartition (patched)', () => {
  it('keeps each partition’s messages in the order given', () => {
    const messages = Array.from({ length: 5000 }, (_, i) => ({
      key: `k${i % 7}`,
      value: String(i),
      partition: i % 3,
    }));
    const grouped = groupMessagesPerPartition({
      topic: 't',
      partitionMetadata,
      messages,
      partitioner: ({ message }) => message.partition ?? -1,
    });
    expect(Object.keys(grouped).sort()).toEqual(['0', '1', '2']);
    for (const partition of [0, 1, 2]) {
      const values = (grouped[partition] ?? []).map((m) => Number(m.value));
      expect(values).toEqual(messages.filter((m) => m.partition === partition).map((m) => Number(m.value)));
    }
  });

  it('puts a key where the default partitioner puts it, every time', () => {
    const partitioner = Partitioners.DefaultPartitioner();
    const messages = Array.from({ length: 600 }, (_, i) => ({ key: `request-${i % 40}`, value: String(i) }));
    const grouped = groupMessagesPerPartition({ topic: 't', partitionMetadata, messages, partitioner });
    const partitionOfKey = new Map<string, string>();
    let count = 0;
    for (const [partition, list] of Object.entries(grouped)) {
      for (const message of list) {
        count += 1;
        expect(partitionOfKey.get(message.key) ?? partition).toBe(partition);
        partitionOfKey.set(message.key, partition);
        expect(partitioner({ topic: 't', partitionMetadata, message })).toBe(Number(partition));
      }
    }
    expect(count).toBe(messages.length);
    expect(partitionOfKey.size).toBe(40);
  });

  it("copies no partition's messages for each message it adds (linear, not quadratic)", () => {
    const messages = Array.from({ length: 300 }, (_, i) => ({ key: `k${i}`, value: String(i) }));
    // Unpatched, every message spread its partition's array into a new one ([...current,
    // message]): one array iteration per message, n²/2 element copies in all. Counted here
    // through the iterator that spreading and for...of both take.
    const iterate = Object.getOwnPropertyDescriptor(Array.prototype, Symbol.iterator);
    const values = iterate?.value as (this: unknown[]) => ArrayIterator<unknown>;
    let iterations = 0;
    Object.defineProperty(Array.prototype, Symbol.iterator, {
      ...iterate,
      value: function counted(this: unknown[]) {
        iterations += 1;
        return values.call(this);
      },
    });
    try {
      groupMessagesPerPartition({ topic: 't', partitionMetadata, messages, partitioner: () => 0 });
    } finally {
      if (iterate) Object.defineProperty(Array.prototype, Symbol.iterator, iterate);
    }
    // One pass over the messages at most.
    expect(iterations).toBeLessThanOrEqual(1);
  });

  it('returns nothing when the topic has no partition metadata', () => {
    const grouped = groupMessagesPerPartition({
      topic: 't',
      partitionMetadata: [],
      messages: [{ key: 'k', value: 'v' }],
      partitioner: () => 0,
    });
    expect(grouped).toEqual({});
  });
});
