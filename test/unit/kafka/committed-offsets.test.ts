/**
 * librdkafka's committed() puts an Error, with no topic or partition, in the place of a
 * partition the coordinator answered with an error. Read as "no offset listed", that partition
 * looked uncommitted ('-1'): a failed round's work could then be sent again though its
 * transaction had committed. The read as a whole fails instead.
 */
import type { KafkaConsumer, LibrdKafkaError } from '@confluentinc/kafka-javascript';
import { describe, expect, it } from 'vitest';
import { committedOf } from '../../../src/kafka/client.js';

type Answer = (Error | { topic: string; partition: number; offset?: number })[];

function consumerAnswering(answer: Answer): Pick<KafkaConsumer, 'committed'> {
  const committed = (
    _toppars: unknown,
    _timeout: number,
    cb: (error: LibrdKafkaError | null, offsets: Answer) => void,
  ): void => {
    cb(null, answer);
  };
  return { committed } as unknown as Pick<KafkaConsumer, 'committed'>;
}

const toppars = [
  { topic: 't', partition: 0 },
  { topic: 't', partition: 1 },
];

describe("librdkafka's committed offsets", () => {
  it('are handed over as they are, a partition without one having no offset', async () => {
    const read = await committedOf(
      consumerAnswering([
        { topic: 't', partition: 0, offset: 7 },
        { topic: 't', partition: 1 },
      ]),
      toppars,
      1_000,
    );
    expect(read).toEqual([
      { topic: 't', partition: 0, offset: 7 },
      { topic: 't', partition: 1 },
    ]);
  });

  it('fail as a whole when a partition came back as an error', async () => {
    const answer = [
      { topic: 't', partition: 0, offset: 7 },
      new Error('Broker: Coordinator load in progress'),
    ];
    await expect(committedOf(consumerAnswering(answer), toppars, 1_000)).rejects.toThrow(
      /could not be read: Broker: Coordinator load in progress/,
    );
  });
});
