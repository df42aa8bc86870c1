/**
 * The runtime takes a partition's first batch only when it was fetched at or before the
 * committed offset, and reads kafkajs's Batch#fetchedOffset for it, which kafkajs's types leave
 * out: pinned here against kafkajs's own Batch, so an upgrade that drops it fails a test.
 */
import { createRequire } from 'node:module';
import type { EachBatchPayload } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { withFetchedOffset } from '../../../src/consumers/worker.js';
import { eachBatchPayload } from '../../helpers/batch-payload.js';

const require = createRequire(import.meta.url);
type KafkajsBatch = EachBatchPayload['batch'];
const Batch = require('kafkajs/src/consumer/batch') as new (
  topic: string,
  fetchedOffset: string,
  partitionData: Record<string, unknown>,
) => KafkajsBatch;

const record = (offset: string, isControlRecord = false) => ({
  offset,
  key: null,
  value: null,
  timestamp: '0',
  attributes: 0,
  headers: {},
  isControlRecord,
});

describe("kafkajs's batch as the worker takes it", () => {
  it('carries the offset it was fetched from, also when a control record comes first', () => {
    const batch = new Batch('t', '7', {
      partition: 2,
      highWatermark: '10',
      abortedTransactions: [],
      messages: [record('6'), record('7', true), record('8'), record('9')],
    });

    const taken = withFetchedOffset(eachBatchPayload(batch));

    expect(taken.batch.fetchedOffset).toBe('7');
    expect(taken.batch.messages.map((m) => m.offset)).toEqual(['8', '9']);
    expect(taken.batch.partition).toBe(2);
  });

  it('refuses a batch without it rather than guess', () => {
    const bare = new Batch('t', '0', {
      partition: 0,
      highWatermark: '0',
      abortedTransactions: [],
      messages: [],
    });
    Reflect.deleteProperty(bare, 'fetchedOffset');
    expect(() => withFetchedOffset(eachBatchPayload(bare))).toThrow(/fetchedOffset/);
  });
});
