import type { Admin } from 'kafkajs';
import { describe, expect, it, vi } from 'vitest';
import { readPartitionLag, type LagAdmin } from '../../../src/observability/consumer-lag.js';

type Ends = Awaited<ReturnType<Admin['fetchTopicsOffsets']>>;

function admin(committed: Record<string, string[]>, ends: Ends): LagAdmin & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    fetchOffsets: vi.fn(({ topics }: { topics: string[] }) =>
      Promise.resolve(
        topics.map((topic) => ({
          topic,
          partitions: (committed[topic] ?? []).map((offset, partition) => ({
            partition,
            offset,
            metadata: null,
          })),
        })),
      ),
    ) as unknown as LagAdmin['fetchOffsets'],
    fetchTopicsOffsets: (topics: string[]) => {
      calls.push(topics);
      return Promise.resolve(ends.filter((entry) => topics.includes(entry.topic)));
    },
  };
}

const end = (partition: number, low: string, high: string) => ({ partition, offset: high, high, low });

describe('readPartitionLag', () => {
  it('reads the ends of every topic in one call and subtracts the committed offsets', async () => {
    const fake = admin({ a: ['3', '-1'], b: ['7'] }, [
      { topic: 'a', partitions: [end(0, '0', '5'), end(1, '2', '9')] },
      { topic: 'b', partitions: [end(0, '0', '7')] },
    ]);

    const lags = await readPartitionLag(fake, 'group', ['a', 'b']);

    expect(fake.calls).toEqual([['a', 'b']]);
    expect(lags).toEqual([
      { topic: 'a', partition: 0, lag: 2 },
      // Nothing committed: behind by everything from the low watermark.
      { topic: 'a', partition: 1, lag: 7 },
      { topic: 'b', partition: 0, lag: 0 },
    ]);
  });

  it('asks the brokers nothing for no topics', async () => {
    const fake = admin({}, []);
    expect(await readPartitionLag(fake, 'group', [])).toEqual([]);
    expect(fake.calls).toEqual([]);
  });
});
