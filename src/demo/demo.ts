import { randomUUID } from 'node:crypto';
import { Partitioners, type Kafka } from 'kafkajs';
import { OPERATIONS, type Operation, type TopicNames } from '../contract/operations.js';
import type { ValueCodec } from '../producers/value-codec.js';
import { sampleKey, sampleParams } from './samples.js';

/** What `runDemo` depends on. */
export interface DemoDeps {
  kafka: Kafka;
  topics: TopicNames;
  codec: ValueCodec;
  write(line: string): void;
  /** How long to wait for outcomes. */
  timeoutMs: number;
}

/**
 * The demo publisher: one request per operation, then each outcome printed as it arrives
 * (results, dead letters and vehicle-search events). Prints ids and statuses only.
 */
export async function runDemo(
  deps: DemoDeps,
): Promise<{ outcomes: number; expected: number; unanswered: number }> {
  const runId = randomUUID().slice(0, 8);
  const pending = new Set<string>();
  const consumer = deps.kafka.consumer({ groupId: `demo-${runId}`, readUncommitted: false });
  await consumer.connect();
  await consumer.subscribe({
    topics: [
      ...OPERATIONS.map((op) => deps.topics.result(op)),
      deps.topics.errors,
      deps.topics.vehicleSearchEvents,
    ],
    fromBeginning: false,
  });
  // Listen before run(): the join can happen before run() resolves. Waiting for it keeps
  // fromBeginning:false from missing the first outcomes.
  const joined = new Promise<void>((resolve) => {
    consumer.on(consumer.events.GROUP_JOIN, () => {
      resolve();
    });
  });
  let outcomes = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  await consumer.run({
    eachMessage: async ({ topic, message }) => {
      if (!message.value) return;
      const value = (await deps.codec.decode(message.value)) as Record<string, unknown>;
      const requestId = String(value.requestId);
      if (!requestId.startsWith(`demo-${runId}`)) return;
      outcomes += 1;
      deps.write(`  ← ${topic.padEnd(48)} ${requestId.padEnd(40)} ${describe(deps.topics, topic, value)}`);
      if (isFinal(deps.topics, topic, requestId, value)) pending.delete(requestId);
      if (pending.size === 0) finished();
    },
  });
  await joined;
  // Every request is pending before the first is sent: an early outcome must not find the set
  // empty while later requests are still on their way.
  for (const operation of OPERATIONS) pending.add(demoRequestId(runId, operation));
  await publishRequests(deps, runId);
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, deps.timeoutMs).unref());
  await Promise.race([done, timeout]);
  await consumer.disconnect();
  if (pending.size > 0) deps.write(`  still waiting for: ${[...pending].join(', ')}`);
  return { outcomes, expected: OPERATIONS.length, unanswered: pending.size };
}

const demoRequestId = (runId: string, operation: Operation): string => `demo-${runId}-${operation}`;

/** One request per operation. */
async function publishRequests(deps: DemoDeps, runId: string): Promise<void> {
  // Idempotent, as upstream should publish: a send retried after the broker took it without its
  // answer reaching us would otherwise write the request again, and it would be answered twice.
  const producer = deps.kafka.producer({
    createPartitioner: Partitioners.DefaultPartitioner,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  for (const operation of OPERATIONS) {
    const requestId = demoRequestId(runId, operation);
    const params = sampleParams(operation);
    await producer.send({
      topic: deps.topics.request(operation),
      messages: [
        {
          key: sampleKey(params),
          value: JSON.stringify({ requestId, params, source: 'demo', requestedAt: new Date().toISOString() }),
        },
      ],
    });
    deps.write(`  → ${deps.topics.request(operation).padEnd(48)} ${requestId}`);
  }
  await producer.disconnect();
}

/** Status words only: an outcome's content is personal data. */
function describe(topics: TopicNames, topic: string, value: Record<string, unknown>): string {
  if (topic === topics.vehicleSearchEvents)
    return `event ${String(value.status)} via ${typeof value.via === 'string' ? value.via : '-'}`;
  if (topic === topics.errors) return `error ${JSON.stringify((value.error as { kind?: string }).kind)}`;
  return `result ${String(value.status)}`;
}

/** vehicle-async ends with its final search event (or a dead letter); the others with their outcome. */
function isFinal(
  topics: TopicNames,
  topic: string,
  requestId: string,
  value: Record<string, unknown>,
): boolean {
  if (topic === topics.errors) return true;
  if (requestId.endsWith('-vehicle-async'))
    return topic === topics.vehicleSearchEvents && value.status !== 'pending';
  return topic !== topics.vehicleSearchEvents;
}
