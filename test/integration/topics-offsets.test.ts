/**
 * fetchTopicsOffsets, added to kafkajs's admin by patches/kafkajs+2.2.4+004+fetch-topics-offsets.patch: the ends of
 * many topics in one call (the consumer lag watch reads the ten request topics with it).
 */
import type { Admin, Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createTopic, idempotentProducer, kafkaClient, randomName } from '../helpers/stack.js';

let admin: Admin;
let producer: Producer;

beforeAll(async () => {
  const kafka = kafkaClient(inject('kafkaBrokers'));
  admin = kafka.admin();
  producer = idempotentProducer(kafka);
  await Promise.all([admin.connect(), producer.connect()]);
});

afterAll(async () => {
  await Promise.all([admin.disconnect(), producer.disconnect()]);
});

describe('admin.fetchTopicsOffsets', () => {
  it('gives every partition of every topic the low and high offsets fetchTopicOffsets gives', async () => {
    const one = randomName('it-ends-one');
    const two = randomName('it-ends-two');
    await createTopic(admin, one, 2);
    await createTopic(admin, two, 3);
    await producer.send({
      topic: one,
      messages: [
        { value: 'a', partition: 1 },
        { value: 'b', partition: 1 },
      ],
    });
    await producer.send({ topic: two, messages: [{ value: 'c', partition: 2 }] });
    await admin.deleteTopicRecords({ topic: one, partitions: [{ partition: 1, offset: '1' }] });

    const both = await admin.fetchTopicsOffsets([one, two]);

    expect(both.map((entry) => entry.topic).sort()).toEqual([one, two].sort());
    for (const topic of [one, two]) {
      const sorted = (list: { partition: number }[]): unknown[] =>
        [...list].sort((a, b) => a.partition - b.partition);
      const perTopic = await admin.fetchTopicOffsets(topic);
      expect(sorted(both.find((entry) => entry.topic === topic)?.partitions ?? [])).toEqual(sorted(perTopic));
    }
    const partitionOne = both.find((entry) => entry.topic === one)?.partitions.find((p) => p.partition === 1);
    expect(partitionOne).toMatchObject({ low: '1', high: '2' });
  });
});
