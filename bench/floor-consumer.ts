/**
 * The floor of benchmark (b): the least an exactly-once pipeline on the design card's clients
 * does per request, measured beside the service in the same run. The service's Kafka client
 * (src/kafka/client.ts) reads the requests with eachBatch, batches uncapped; each is parsed,
 * its params checked, and its vendor call made through the same client (undici), paced in
 * this process at FLOOR_RATE_PER_SECOND; the results go out in
 * transactions, one per FLOOR_TRANSACTION_SIZE results with the consumed offsets (about the
 * service's ten a second at (b)'s pace), from one transactional producer per partition. Each
 * partition has FLOOR_SLICES_AHEAD such slices under way, so about 360 requests are in flight.
 *
 * What it leaves out is what the service adds: the idempotency store and the shared limiter
 * (Redis), the outcome envelope and its schema, metrics, logs and traces. So it bills again
 * after a crash and holds a rate for one process only: a measure, never a design to copy.
 * Configured by the environment the service uses (KAFKA_BROKERS, TOPIC_PREFIX, VENDOR_*).
 */
import { loadConfig } from '../src/config.js';
import { topicNames } from '../src/contract/operations.js';
import { parseParams } from '../src/contract/params.js';
import { createKafka, type KafkaMessage, type Producer } from '../src/kafka/client.js';
import { createVendorClient } from '../src/vendor-api/client.js';

const config = loadConfig();
const topics = topicNames(config.TOPIC_PREFIX);
const topic = topics.request('lawsuits-summary');

/** Each setting comes from the scenario (bench/scenarios/), never from a default here. */
function positive(name: string, integer = false): number {
  const raw = process.env[name];
  const value = Number(raw);
  if (raw === undefined || raw === '' || !(value > 0) || (integer && !Number.isInteger(value)))
    throw new Error(`${name} must be a positive ${integer ? 'integer' : 'number'}, got ${String(raw)}`);
  return value;
}
const ratePerSecond = positive('FLOOR_RATE_PER_SECOND');
const transactionSize = positive('FLOOR_TRANSACTION_SIZE', true);
const slicesAhead = positive('FLOOR_SLICES_AHEAD', true);

const kafka = createKafka({ clientId: 'floor', brokers: config.KAFKA_BROKERS });
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
      kafkaJS: { transactionalId: `${config.KAFKA_GROUP_ID}.floor.${partition}`, idempotent: true },
    });
    producer = created.connect().then(() => created);
    producers.set(partition, producer);
  }
  return producer;
}

/** Calls are scheduled 1/rate apart, in the order they asked (a late timer may bunch them). */
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

/** Never rejects: a request it cannot read or a call that fails goes to the errors topic. */
async function handle(message: KafkaMessage): Promise<Output> {
  let requestId: unknown = null;
  try {
    const request = JSON.parse(message.value?.toString() ?? '{}') as {
      requestId?: unknown;
      params?: unknown;
    };
    requestId = request.requestId;
    const params = parseParams('lawsuits-summary', request.params);
    if (params.ok) {
      await paced();
      const result = await vendor.call('lawsuits-summary', params.params);
      const value = JSON.stringify({ requestId, status: 'ok', response: result.raw });
      return { topic: topics.result('lawsuits-summary'), key: message.key, value };
    }
  } catch {
    // An error outcome below, as for params that do not check.
  }
  return { topic: topics.errors, key: message.key, value: JSON.stringify({ requestId }) };
}

/** One transaction: the slice's outputs and the offset after its last message. */
async function commitSlice(producer: Producer, partition: number, outputs: Output[], last: KafkaMessage) {
  const byTopic = new Map<string, { key: Buffer | null; value: string }[]>();
  for (const { topic: to, key, value } of outputs) {
    const messages = byTopic.get(to) ?? [];
    messages.push({ key, value });
    byTopic.set(to, messages);
  }
  const transaction = await producer.transaction();
  try {
    await transaction.sendBatch({
      topicMessages: [...byTopic].map(([to, messages]) => ({ topic: to, messages })),
    });
    // With the member's generation (KIP-447), as the service commits: the client takes the
    // consumer, whose group metadata it sends.
    await transaction.sendOffsets({
      consumer,
      topics: [{ topic, partitions: [{ partition, offset: String(BigInt(last.offset) + 1n) }] }],
    });
    await transaction.commit();
  } catch (error) {
    await transaction.abort();
    throw error;
  }
}

const consumer = kafka.consumer({
  kafkaJS: { groupId: config.KAFKA_GROUP_ID, fromBeginning: true, autoCommit: false, readUncommitted: false },
  // A batch is what a fetch brought for the partition, not the client's default 32.
  'js.consumer.max.batch.size': -1,
});
await consumer.connect();
await consumer.subscribe({ topics: [topic] });
await consumer.run({
  eachBatchAutoResolve: false,
  partitionsConsumedConcurrently: 3,
  eachBatch: async (payload) => {
    const { batch } = payload;
    const producer = await producerFor(batch.partition);
    const slices: KafkaMessage[][] = [];
    for (let from = 0; from < batch.messages.length; from += transactionSize)
      slices.push(batch.messages.slice(from, from + transactionSize));
    // A few slices under way at once (their calls paced), each committed in order; the next
    // starts as one is committed, so the requests in flight stay bounded.
    const started = slices.slice(0, slicesAhead).map((slice) => Promise.all(slice.map(handle)));
    for (const [index, slice] of slices.entries()) {
      const outputs = await (started[index] as Promise<Output[]>);
      const next = slices[index + slicesAhead];
      if (next) started.push(Promise.all(next.map(handle)));
      const last = slice[slice.length - 1] as KafkaMessage;
      await commitSlice(producer, batch.partition, outputs, last);
      payload.resolveOffset(last.offset);
      await payload.heartbeat();
      if (!payload.isRunning() || payload.isStale()) break;
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
