import { describe, expect, it } from 'vitest';
import type { OffsetsAdmin } from '../../../src/kafka/client.js';
import { requestCommitCheck } from '../../../src/webhooks/request-commit.js';

/** An admin whose committed offsets per partition are set by the test; counts its calls. */
function fakeAdmin(committed: Record<number, string>) {
  const admin: OffsetsAdmin & { calls: number } = {
    calls: 0,
    fetchOffsets: ({ topics = [] }) => {
      admin.calls++;
      const partitions = Object.entries(committed).map(([partition, offset]) => ({
        partition: Number(partition),
        offset,
        metadata: null,
        leaderEpoch: null,
        error: null,
      }));
      return Promise.resolve(topics.map((t) => ({ topic: typeof t === 'string' ? t : t.topic, partitions })));
    },
  };
  return admin;
}

const at = (partition: number, offset: string) => ({ topic: 'requests', partition, offset });

describe('whether a request is committed', () => {
  it('is once the group committed past its offset, not at it, and not with nothing committed', async () => {
    // Partition 0: nothing committed (librdkafka's -1001).
    const committed: Record<number, string> = { 0: '-1001', 1: '5' };
    const admin = fakeAdmin(committed);
    const isCommitted = requestCommitCheck(admin, 'group');
    expect(await isCommitted(at(0, '0'))).toBe(false);
    // The committed offset is the next one to read: message 5 is not done yet.
    expect(await isCommitted(at(1, '5'))).toBe(false);
    expect(await isCommitted(at(1, '4'))).toBe(true);
    committed[1] = '6';
    expect(await isCommitted(at(1, '5'))).toBe(true);
  });

  it('answers from the highest offset seen without asking the broker again', async () => {
    const admin = fakeAdmin({ 0: '100' });
    const isCommitted = requestCommitCheck(admin, 'group');
    expect(await isCommitted(at(0, '99'))).toBe(true);
    expect(await isCommitted(at(0, '10'))).toBe(true);
    expect(admin.calls).toBe(1);
  });
});
