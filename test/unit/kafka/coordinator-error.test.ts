/**
 * A librdkafka error with code 15 (COORDINATOR_NOT_AVAILABLE: the node coordinating the group
 * was killed) must come back from the KafkaJS-compatible layer as an error, not as a TypeError
 * thrown inside the client's callback, which killed a replica in the cluster fault suite.
 */
import { createRequire } from 'node:module';
import { expect, it } from 'vitest';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import '../../../src/kafka/client.js';

const require = createRequire(import.meta.url);
const { createKafkaJsErrorFromLibRdKafkaError } =
  require('@confluentinc/kafka-javascript/lib/kafkajs/_common.js') as {
    createKafkaJsErrorFromLibRdKafkaError: (error: { code: number; message: string }) => Error;
  };

it('converts a coordinator-not-available error into an error with its code', () => {
  const code = KafkaJS.ErrorCodes.ERR_GROUP_COORDINATOR_NOT_AVAILABLE;
  const converted = createKafkaJsErrorFromLibRdKafkaError({
    code,
    message: 'Broker: Coordinator not available',
  });
  expect(converted).toBeInstanceOf(KafkaJS.KafkaJSError);
  expect((converted as Error & { code: number }).code).toBe(code);
});
