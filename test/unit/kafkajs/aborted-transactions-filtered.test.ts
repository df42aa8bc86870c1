/**
 * A read_committed fetch hides the records of every aborted transaction it steps into (the
 * kafkajs patch 010, consumer/filterAbortedMessages.js). Unpatched, kafkajs took one aborted
 * transaction from the fetch response's list per record: a fetch that began after two
 * producers' aborted transactions had both begun (replicas whose transactions failed, on one
 * results partition) handed the second one's records over as committed. The fault suite's
 * read_committed observer counted such records as second outcomes, and `replay` would show them.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

interface Message {
  offset: string;
  key: Buffer | null;
  value: string;
  batchContext: { producerId: string; inTransaction: boolean };
}
type Filter = (args: {
  messages: Message[];
  abortedTransactions: { producerId: string; firstOffset: string }[];
}) => Message[];
const filterAbortedMessages = require('kafkajs/src/consumer/filterAbortedMessages') as Filter;

const ABORT_MARKER_KEY = Buffer.from([0, 0, 0, 0]);
const record = (offset: number, producerId: string, value: string): Message => ({
  offset: String(offset),
  key: Buffer.from('k'),
  value,
  batchContext: { producerId, inTransaction: true },
});
const abortMarker = (offset: number, producerId: string): Message => ({
  offset: String(offset),
  key: ABORT_MARKER_KEY,
  value: 'abort marker',
  batchContext: { producerId, inTransaction: true },
});

describe('records of aborted transactions, read_committed', () => {
  it('are all hidden when the fetch begins after two aborted transactions have begun', () => {
    const kept = filterAbortedMessages({
      // Both began before the fetch (in offset order, as the broker lists them).
      abortedTransactions: [
        { producerId: '7', firstOffset: '90' },
        { producerId: '8', firstOffset: '95' },
      ],
      messages: [
        record(100, '8', 'aborted outcome of replica 8'),
        record(101, '7', 'aborted outcome of replica 7'),
        record(102, '9', 'committed outcome of replica 9'),
        abortMarker(103, '7'),
        abortMarker(104, '8'),
        record(105, '8', 'a later, committed outcome of replica 8'),
      ],
    });
    expect(kept.filter((m) => m.key !== ABORT_MARKER_KEY).map((m) => m.value)).toEqual([
      'committed outcome of replica 9',
      'a later, committed outcome of replica 8',
    ]);
  });
});
