import type { Kafka, Producer } from '../../src/kafka/client.js';

type ProducerRecord = Parameters<Producer['send']>[0];
type RecordMetadata = Awaited<ReturnType<Producer['send']>>[number];

/**
 * A producer that keeps what it is asked to send and answers each send with `answer` (the
 * client's list of the partitions written): for unit tests of one module that writes to Kafka.
 */
export function recordingKafka(answer: RecordMetadata[] = []): {
  kafka: Pick<Kafka, 'producer'>;
  sent: ProducerRecord[];
} {
  const sent: ProducerRecord[] = [];
  const producer = {
    connect: () => Promise.resolve(),
    disconnect: () => Promise.resolve(),
    send: (record: ProducerRecord) => {
      sent.push(record);
      return Promise.resolve(answer);
    },
  } as unknown as Producer;
  return { kafka: { producer: () => producer }, sent };
}
