import { describe, expect, it } from 'vitest';
import { openRepublisher } from '../../../src/audit/republish.js';
import { recordingKafka } from '../../helpers/recording-kafka.js';

const message = {
  topic: 'p.requests.vehicle',
  partition: 5,
  key: Buffer.from('k'),
  value: Buffer.from('{}'),
  headers: {},
};

describe('republishing one message', () => {
  it('sends it to the partition asked for and says where it landed', async () => {
    const written = { topicName: message.topic, partition: 5, errorCode: 0, baseOffset: '41' };
    const { kafka, sent } = recordingKafka([written]);
    const publisher = await openRepublisher(kafka);
    expect(await publisher.sendNow(message)).toEqual({ partition: 5, offset: '41' });
    expect(sent[0]?.messages[0]?.partition).toBe(5);
    await publisher.close();
  });

  it('fails when kafkajs wrote nothing (a partition with no leader), never reporting it sent', async () => {
    const { kafka } = recordingKafka([]);
    const publisher = await openRepublisher(kafka);
    await expect(publisher.sendNow(message)).rejects.toThrow(
      'nothing was written to p.requests.vehicle (partition 5)',
    );
    expect(publisher.sent).toBe(0);
    await publisher.close();
  });
});
