/**
 * The baseline of every benchmark: a plain eachMessage consumer on the service's Kafka client
 * (src/kafka/client.ts) doing the same work per request (parse, check params, call the vendor
 * through the same client, write the result), the way one would write it first: one message at
 * a time per partition, autoCommit, a plain producer.send per result, no transactions, no
 * limiter, no idempotency store.
 * Configured by the environment the service uses (KAFKA_BROKERS, TOPIC_PREFIX, VENDOR_*).
 */
import { loadConfig } from '../src/config.js';
import { topicNames } from '../src/contract/operations.js';
import { parseParams } from '../src/contract/params.js';
import { createKafka } from '../src/kafka/client.js';
import { createVendorClient } from '../src/vendor-api/client.js';

const config = loadConfig();
const topics = topicNames(config.TOPIC_PREFIX);
const topic = topics.request('lawsuits-summary');
const kafka = createKafka({ clientId: 'baseline', brokers: config.KAFKA_BROKERS });
const vendor = createVendorClient({
  baseUrl: config.VENDOR_BASE_URL,
  apiKey: config.VENDOR_API_KEY,
  connections: 64,
});
// Each result sent as it is ready, as kafkajs sent it: the client's default linger (5 ms) would
// hold every awaited send of this one-message-at-a-time consumer for nothing.
const producer = kafka.producer({ 'linger.ms': 0 });
const consumer = kafka.consumer({ kafkaJS: { groupId: config.KAFKA_GROUP_ID, fromBeginning: true } });
await producer.connect();
await consumer.connect();
await consumer.subscribe({ topics: [topic] });
await consumer.run({
  partitionsConsumedConcurrently: Number(process.env.BASELINE_CONCURRENCY ?? '1'),
  eachMessage: async ({ message, partition }) => {
    const request = JSON.parse(message.value?.toString() ?? '{}') as { requestId: string; params: unknown };
    const params = parseParams('lawsuits-summary', request.params);
    const value = params.ok
      ? {
          requestId: request.requestId,
          status: 'ok',
          response: (await vendor.call('lawsuits-summary', params.params)).raw,
        }
      : { requestId: request.requestId, error: params.message };
    await producer.send({
      topic: params.ok ? topics.result('lawsuits-summary') : topics.errors,
      messages: [
        {
          key: message.key,
          value: JSON.stringify({ ...value, origin: { topic, partition, offset: message.offset } }),
        },
      ],
    });
  },
});
process.stdout.write('baseline started\n');
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void Promise.all([consumer.disconnect(), producer.disconnect(), vendor.close()]).finally(() =>
      process.exit(0),
    );
  });
}
