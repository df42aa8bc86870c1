/**
 * The floor of benchmark (b): the least an exactly-once pipeline on the design card's clients
 * does per request, measured beside the service in the same run. kafkajs eachBatch reads the
 * requests; each is parsed, its params checked, and its vendor call made through the same
 * client (undici), paced in this process at FLOOR_RATE_PER_SECOND; the results go out in
 * transactions, one per FLOOR_TRANSACTION_SIZE results with the consumed offsets (about the
 * service's ten a second at (b)'s pace), from one transactional producer per partition.
 *
 * What it leaves out is what the service adds: the idempotency store and the shared limiter
 * (Redis), the outcome envelope and its schema, metrics, logs and traces. So it bills again
 * after a crash and holds a rate for one process only: a measure, never a design to copy.
 * Configured by the environment the service uses (KAFKA_BROKERS, TOPIC_PREFIX, VENDOR_*).
 */
import { Kafka, Partitioners, logLevel, type KafkaMessage, type Producer } from 'kafkajs';
import { loadConfig } from '../src/config.js';
import { topicNames } from '../src/contract/operations.js';
import { parseParams } from '../src/contract/params.js';
import { createVendorClient } from '../src/vendor-api/client.js';

const config = loadConfig();
const topics = topicNames(config.TOPIC_PREFIX);
const topic = topics.request('lawsuits-summary');
const ratePerSecond = Number(process.env.FLOOR_RATE_PER_SECOND);
if (!(ratePerSecond > 0)) throw new Error('FLOOR_RATE_PER_SECOND must be a positive number');
const transactionSize = Number(process.env.FLOOR_TRANSACTION_SIZE ?? '30');

const kafka = new Kafka({
  clientId: 'floor',
  brokers: [...config.KAFKA_BROKERS],
  logLevel: logLevel.NOTHING,
});
const vendor = createVendorClient({
  baseUrl: config.VENDOR_BASE_URL,
  apiKey: config.VENDOR_API_KEY,
  connections: config.VENDOR_CONNECTIONS,
});
const producers = new Map<number, Promise<Producer>>();

function producerFor(partition: number): Promise<Producer> {
  let producer = producers.get(partition);
  if (!producer) {
    const created = kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      transactionalId: `${config.KAFKA_GROUP_ID}.floor.${partition}`,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    producer = created.connect().then(() => created);
    producers.set(partition, producer);
  }
  return producer;
}

/** Calls start no closer than 1/rate apart, in the order they asked. */
let nextStart = 0;
function paced(): Promise<void> {
  const now = Date.now();
  nextStart = Math.max(now, nextStart + 1000 / ratePerSecond);
  const wait = nextStart - now;
  return wait < 1 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, wait));
}

interface Output {
  topic: string;
  key: Buffer | null;
  value: string;
}

async function handle(message: KafkaMessage): Promise<Output> {
  const request = JSON.parse(message.value?.toString() ?? '{}') as { requestId: string; params: unknown };
  const params = parseParams('lawsuits-summary', request.params);
  if (!params.ok) {
    return {
      topic: topics.errors,
      key: message.key,
      value: JSON.stringify({ requestId: request.requestId }),
    };
  }
  await paced();
  try {
    const result = await vendor.call('lawsuits-summary', params.params);
    const value = JSON.stringify({ requestId: request.requestId, status: 'ok', response: result.raw });
    return { topic: topics.result('lawsuits-summary'), key: message.key, value };
  } catch {
    return {
      topic: topics.errors,
      key: message.key,
      value: JSON.stringify({ requestId: request.requestId }),
    };
  }
}

const consumer = kafka.consumer({ groupId: config.KAFKA_GROUP_ID });
await consumer.connect();
await consumer.subscribe({ topic, fromBeginning: true });
await consumer.run({
  autoCommit: false,
  partitionsConsumedConcurrently: 3,
  eachBatch: async (payload) => {
    const { batch } = payload;
    const producer = await producerFor(batch.partition);
    // Every call of the batch is under way at once (paced); each slice is committed in order.
    const outputs = batch.messages.map((message) => handle(message));
    for (let from = 0; from < outputs.length; from += transactionSize) {
      const slice = await Promise.all(outputs.slice(from, from + transactionSize));
      const last = batch.messages[Math.min(from + transactionSize, outputs.length) - 1];
      if (!last) break;
      const transaction = await producer.transaction();
      const byTopic = new Map<string, { key: Buffer | null; value: string }[]>();
      for (const { topic: to, key, value } of slice)
        byTopic.set(to, [...(byTopic.get(to) ?? []), { key, value }]);
      await transaction.sendBatch({
        topicMessages: [...byTopic].map(([to, messages]) => ({ topic: to, messages })),
      });
      await transaction.sendOffsets({
        consumerGroupId: config.KAFKA_GROUP_ID,
        topics: [
          { topic, partitions: [{ partition: batch.partition, offset: String(BigInt(last.offset) + 1n) }] },
        ],
      });
      await transaction.commit();
      await payload.heartbeat();
    }
  },
});
process.stdout.write('floor started\n');
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    const closing = [...producers.values()].map((p) => p.then((producer) => producer.disconnect()));
    void Promise.all([consumer.disconnect(), ...closing, vendor.close()]).finally(() => process.exit(0));
  });
}
