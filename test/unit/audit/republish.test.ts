import { describe, expect, it } from 'vitest';
import { openRepublisher } from '../../../src/audit/republish.js';
import type { Kafka, ProducerConstructorConfig } from '../../../src/kafka/client.js';
import { recordingKafka } from '../../helpers/recording-kafka.js';

const message = {
  topic: 'p.requests.vehicle',
  partition: 5,
  key: Buffer.from('k'),
  value: Buffer.from('{}'),
  headers: {},
};

/** The recording client, keeping the configuration each producer is made with. */
function configuredKafka(answer: Parameters<typeof recordingKafka>[0] = []) {
  const recording = recordingKafka(answer);
  const configs: (ProducerConstructorConfig | undefined)[] = [];
  const kafka: Pick<Kafka, 'producer'> = {
    producer: (config) => {
      configs.push(config);
      return recording.kafka.producer(config);
    },
  };
  return { kafka, sent: recording.sent, configs };
}

describe('republishing one message', () => {
  it('sends it to the partition asked for and says where it landed', async () => {
    const written = { topicName: message.topic, partition: 5, errorCode: 0, baseOffset: '41' };
    const { kafka, sent } = configuredKafka([written]);
    const publisher = await openRepublisher(kafka);
    expect(await publisher.sendNow(message)).toEqual({ partition: 5, offset: '41' });
    expect(sent[0]?.messages[0]?.partition).toBe(5);
    expect(publisher.sent).toBe(1);
    await publisher.close();
  });

  it('writes with an idempotent producer acknowledged by every in-sync replica, creating no topic', async () => {
    const { kafka, configs } = configuredKafka();
    const publisher = await openRepublisher(kafka);
    await publisher.close();
    expect(configs).toEqual([{ kafkaJS: { idempotent: true, acks: -1, allowAutoTopicCreation: false } }]);
  });

  it('fails when the client reports no partition written, never reporting it sent', async () => {
    const { kafka } = configuredKafka([]);
    const publisher = await openRepublisher(kafka);
    await expect(publisher.sendNow(message)).rejects.toThrow(
      'nothing was written to p.requests.vehicle (partition 5)',
    );
    expect(publisher.sent).toBe(0);
    await publisher.close();
  });
});
