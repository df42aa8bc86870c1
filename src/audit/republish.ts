import { idempotentProducer, type IHeaders, type Kafka, type Producer } from '../kafka/client.js';

/**
 * Writing messages back: `replay --to-topic` (batched, many) and `redrive` (one by one, each
 * reported with where it landed). Idempotent producer, acks from all replicas. A message with
 * a partition goes there (a redriven request: where it was read, with its key's other
 * requests, whatever partitioner its publisher used); others are partitioned by key with the
 * Java client's hash.
 */
export interface OutgoingMessage {
  topic: string;
  partition?: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: IHeaders;
}

export interface Republisher {
  /** Queues the message; sends a batch when enough are queued. */
  add(message: OutgoingMessage): Promise<void>;
  /** Sends the message at once and says where it was written. */
  sendNow(message: OutgoingMessage): Promise<{ partition: number; offset: string }>;
  /** Sends what is queued and disconnects. */
  close(): Promise<void>;
  readonly sent: number;
}

const BATCH_SIZE = 500;

export async function openRepublisher(kafka: Pick<Kafka, 'producer'>): Promise<Republisher> {
  const producer: Producer = idempotentProducer(kafka);
  await producer.connect();
  let queued: OutgoingMessage[] = [];
  let sent = 0;
  const flush = async (): Promise<void> => {
    if (queued.length === 0) return;
    const batch = queued;
    queued = [];
    await sendBatch(producer, batch);
    sent += batch.length;
  };
  return {
    async add(message) {
      queued.push(message);
      if (queued.length >= BATCH_SIZE) await flush();
    },
    async sendNow({ topic, partition, key, value, headers }) {
      const message = { key, value, headers, ...(partition === undefined ? {} : { partition }) };
      const [written] = await producer.send({ topic, messages: [message] });
      if (!written)
        throw new Error(`nothing was written to ${topic} (partition ${String(partition ?? 'by key')})`);
      sent += 1;
      return { partition: written.partition, offset: written.offset ?? written.baseOffset ?? '' };
    },
    async close() {
      try {
        await flush();
      } finally {
        await producer.disconnect();
      }
    },
    get sent() {
      return sent;
    },
  };
}

function sendBatch(producer: Producer, batch: readonly OutgoingMessage[]): Promise<unknown> {
  const byTopic = new Map<string, OutgoingMessage[]>();
  for (const m of batch) {
    const list = byTopic.get(m.topic);
    if (list) list.push(m);
    else byTopic.set(m.topic, [m]);
  }
  return producer.sendBatch({
    topicMessages: [...byTopic].map(([topic, messages]) => ({
      topic,
      messages: messages.map(({ key, value, headers }) => ({ key, value, headers })),
    })),
  });
}
