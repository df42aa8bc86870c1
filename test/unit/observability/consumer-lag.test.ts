import { describe, expect, it } from 'vitest';
import { readPartitionLag, type LagAdmin } from '../../../src/observability/consumer-lag.js';

type Ends = Awaited<ReturnType<LagAdmin['fetchTopicOffsets']>>;
type Committed = Awaited<ReturnType<LagAdmin['fetchOffsets']>>;

/**
 * The client's admin as the lag sees it: the group's committed offsets (none listed for a
 * topic the group never committed on, librdkafka's -1001 for a partition without one), and
 * each topic's ends, one call a topic.
 */
function admin(
  committed: Committed,
  ends: Record<string, Ends>,
): LagAdmin & { calls: string[]; offsetsAsked: Parameters<LagAdmin['fetchOffsets']>[0][] } {
  const calls: string[] = [];
  const offsetsAsked: Parameters<LagAdmin['fetchOffsets']>[0][] = [];
  return {
    calls,
    offsetsAsked,
    fetchOffsets: (asked) => {
      offsetsAsked.push(asked);
      return Promise.resolve(committed);
    },
    fetchTopicOffsets: (topic: string) => {
      calls.push(topic);
      return Promise.resolve(ends[topic] ?? []);
    },
  };
}

const end = (partition: number, low: string, high: string) => ({ partition, offset: high, high, low });
const at = (partition: number, offset: string) => ({
  partition,
  offset,
  metadata: null,
  leaderEpoch: null,
  error: null,
});

describe('readPartitionLag', () => {
  it("reads each topic's ends and subtracts the committed offsets", async () => {
    const fake = admin([{ topic: 'a', partitions: [at(0, '3'), at(1, '-1001')] }], {
      a: [end(0, '0', '5'), end(1, '2', '9')],
      b: [end(0, '4', '7')],
    });

    const lags = await readPartitionLag(fake, 'group', ['a', 'b']);

    expect(fake.calls).toEqual(['a', 'b']);
    // The group's offsets in one request, for the partitions the ends listed.
    expect(fake.offsetsAsked).toEqual([
      {
        groupId: 'group',
        topics: [
          { topic: 'a', partitions: [0, 1] },
          { topic: 'b', partitions: [0] },
        ],
      },
    ]);
    expect(lags).toEqual([
      { topic: 'a', partition: 0, lag: 2 },
      // Nothing committed: behind by everything from the low watermark.
      { topic: 'a', partition: 1, lag: 7 },
      // A topic the group never committed on is not listed at all: behind from its low watermark.
      { topic: 'b', partition: 0, lag: 3 },
    ]);
  });

  it('asks for one topic at a time: never a second request while one is unanswered', async () => {
    let open = 0;
    let most = 0;
    const fake: LagAdmin = {
      fetchOffsets: () => Promise.resolve([]),
      fetchTopicOffsets: async () => {
        open += 1;
        most = Math.max(most, open);
        await new Promise((resolve) => setTimeout(resolve, 5));
        open -= 1;
        return [end(0, '0', '1')];
      },
    };
    await readPartitionLag(fake, 'group', ['a', 'b', 'c', 'd']);
    expect(most).toBe(1);
  });

  it('asks the brokers nothing for no topics', async () => {
    const fake = admin([], {});
    expect(await readPartitionLag(fake, 'group', [])).toEqual([]);
    expect(fake.calls).toEqual([]);
    expect(fake.offsetsAsked).toEqual([]);
  });
});
