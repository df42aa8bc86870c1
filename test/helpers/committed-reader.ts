/**
 * Reads a topic the way the contract's readers do: a read_committed consumer from the topic's
 * beginning, each value JSON, framed in the registry's wire format (5-byte header) or not.
 */
import type { Consumer, Kafka } from '../../src/kafka/client.js';
import { isFramed } from '../../src/producers/value-codec.js';
import { randomName } from './stack.js';

export interface JsonRecord {
  /** The JSON after the frame, parsed. */
  body: unknown;
  framed: boolean;
  key: string | null;
  headers: Record<string, string>;
}

/**
 * Starts the reader and returns the array it fills as records arrive (mapped by `map`); its
 * disconnect is pushed onto `cleanups`.
 */
export async function readCommitted<T>(
  kafka: Kafka,
  topic: string,
  cleanups: (() => Promise<unknown>)[],
  map: (record: JsonRecord) => T,
): Promise<T[]> {
  const consumer: Consumer = kafka.consumer({
    kafkaJS: { groupId: randomName('reader'), fromBeginning: true, readUncommitted: false },
  });
  cleanups.push(() => consumer.disconnect());
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  const records: T[] = [];
  await consumer.run({
    eachMessage: ({ message }) => {
      if (!message.value) return Promise.resolve();
      const framed = isFramed(message.value);
      const headers: Record<string, string> = {};
      for (const [name, header] of Object.entries(message.headers ?? {})) {
        if (Buffer.isBuffer(header)) headers[name] = header.toString();
        else if (typeof header === 'string') headers[name] = header;
      }
      records.push(
        map({
          body: JSON.parse(message.value.subarray(framed ? 5 : 0).toString('utf8')) as unknown,
          framed,
          key: message.key?.toString() ?? null,
          headers,
        }),
      );
      return Promise.resolve();
    },
  });
  return records;
}
