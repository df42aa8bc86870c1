import type { Kafka, Producer } from '../kafka/client.js';
import type { VehicleSearchEvent } from '../contract/envelopes.js';
import { recordForEvent, type OutputDeps } from '../producers/output-records.js';

/**
 * Writes the final vehicle-search events. An idempotent producer, not a transactional one:
 * each event is one record to one partition, so there is no group of writes to make atomic,
 * and the broker already drops a retried send it has stored (idempotence). What keeps an event
 * single across webhook calls and replicas is the claim and the done marker in the pending
 * store, which a Kafka transaction could not cover anyway (Redis is not part of it).
 * read_committed consumers see these records as soon as they are acknowledged.
 */
export interface EventPublisher {
  publish(
    event: VehicleSearchEvent,
    correlation: { key: Buffer | null; traceparent?: string | undefined },
  ): Promise<void>;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

export function createEventPublisher(kafka: Kafka, output: OutputDeps): EventPublisher {
  // Idempotent, acks from every in-sync replica; the client's default partitioner is Java's
  // (murmur2 of the key).
  const producer: Producer = kafka.producer({ kafkaJS: { idempotent: true, acks: -1 } });
  let connected: Promise<void> | undefined;
  const connect = (): Promise<void> => (connected ??= producer.connect());
  return {
    connect,
    async publish(event, correlation) {
      await connect();
      const record = await recordForEvent(output, event, correlation);
      await producer.send({
        topic: record.topic,
        messages: [{ key: record.key, value: record.value, headers: record.headers }],
      });
    },
    async disconnect() {
      if (connected === undefined) return;
      connected = undefined;
      await producer.disconnect();
    },
  };
}
