import { randomUUID } from 'node:crypto';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { idempotentProducer, type Kafka } from '../kafka/client.js';
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
  /** Bulk-lane requests published before the interactive ones (`dev --demo-bulk`; 0: none). */
  bulkRequests?: number;
}

/** The operation of the demo's bulk backlog: a quick, synchronous call. */
const BULK_OPERATION: Operation = 'lawsuits-summary';

/**
 * The demo publisher: a backlog of bulk-lane requests first, then one interactive request per
 * operation, then each outcome printed as it arrives (results, dead letters and vehicle-search
 * events; the bulk ones counted, not printed), and how many of the bulk requests, published
 * first, were answered before the last interactive one. Prints ids and statuses only.
 */
export async function runDemo(
  deps: DemoDeps,
): Promise<{ outcomes: number; expected: number; unanswered: number; bulkBeforeInteractive: number }> {
  const runId = randomUUID().slice(0, 8);
  const bulk = deps.bulkRequests ?? 0;
  const tally = new DemoTally(deps, runId);
  // Listening from the rebalance callback: the assignment can come before run() resolves.
  // Waiting for it keeps fromBeginning:false from missing the first outcomes.
  let assigned: () => void = () => undefined;
  const joined = new Promise<void>((resolve) => {
    assigned = resolve;
  });
  const consumer = deps.kafka.consumer({
    kafkaJS: { groupId: `demo-${runId}`, readUncommitted: false, fromBeginning: false },
    rebalance_cb: (error: { code: number }) => {
      if (error.code === KafkaJS.ErrorCodes.ERR__ASSIGN_PARTITIONS) assigned();
    },
  });
  await consumer.connect();
  const outputs = [
    ...OPERATIONS.map((op) => deps.topics.result(op)),
    deps.topics.errors,
    deps.topics.vehicleSearchEvents,
  ];
  await consumer.subscribe({ topics: outputs });
  // In `dev` the demo shares the service's event loop: its decoder's schemas are compiled
  // before the first request goes out, not amid the service's first vendor calls.
  await deps.codec.prepare(outputs);
  await consumer.run({
    eachMessage: async ({ topic, message }) => {
      if (!message.value) return;
      tally.received(topic, (await deps.codec.decode(message.value)) as Record<string, unknown>);
    },
  });
  await joined;
  // Every request is pending before the first is sent: an early outcome must not find the set
  // empty while later requests are still on their way.
  for (const operation of OPERATIONS) tally.pending.add(demoRequestId(runId, operation));
  for (let i = 0; i < bulk; i++) tally.pending.add(bulkRequestId(runId, i));
  await publishRequests(deps, runId, bulk);
  const timeout = new Promise<void>((resolve) => setTimeout(resolve, deps.timeoutMs).unref());
  await Promise.race([tally.done, timeout]);
  await consumer.disconnect();
  if (bulk > 0) {
    deps.write(
      `  bulk lane: ${tally.bulkAnswered} of ${bulk} answered; ${tally.bulkBeforeInteractive} of them before the last interactive request, though all ${bulk} were published first`,
    );
  }
  const unanswered = [...tally.pending];
  if (unanswered.length > 0) deps.write(`  still waiting for: ${unanswered.slice(0, 20).join(', ')}`);
  return {
    outcomes: tally.outcomes,
    expected: OPERATIONS.length + bulk,
    unanswered: unanswered.length,
    bulkBeforeInteractive: tally.bulkBeforeInteractive,
  };
}

/** The demo's outcomes as they arrive: interactive ones printed, bulk ones counted. */
class DemoTally {
  readonly pending = new Set<string>();
  readonly done: Promise<void>;
  outcomes = 0;
  bulkAnswered = 0;
  bulkBeforeInteractive = 0;
  private interactiveLeft: number = OPERATIONS.length;
  private finished!: () => void;

  constructor(
    private readonly deps: DemoDeps,
    private readonly runId: string,
  ) {
    this.done = new Promise<void>((resolve) => (this.finished = resolve));
  }

  received(topic: string, value: Record<string, unknown>): void {
    const { deps } = this;
    const requestId = String(value.requestId);
    if (!requestId.startsWith(`demo-${this.runId}`)) return;
    this.outcomes += 1;
    const final = isFinal(deps.topics, topic, requestId, value);
    if (requestId.startsWith(`demo-${this.runId}-bulk-`)) {
      this.bulkAnswered += 1;
      if (this.interactiveLeft > 0) this.bulkBeforeInteractive += 1;
    } else {
      if (final) this.interactiveLeft -= 1;
      deps.write(`  ← ${topic.padEnd(48)} ${requestId.padEnd(40)} ${describe(deps.topics, topic, value)}`);
    }
    if (final) this.pending.delete(requestId);
    if (this.pending.size === 0) this.finished();
  }
}

const demoRequestId = (runId: string, operation: Operation): string => `demo-${runId}-${operation}`;
const bulkRequestId = (runId: string, index: number): string => `demo-${runId}-bulk-${index}`;

/**
 * The bulk backlog on the bulk lane, then one request per operation on the interactive lane:
 * the interactive ones are answered first all the same (shared/contract.md, "Lanes").
 */
async function publishRequests(deps: DemoDeps, runId: string, bulk: number): Promise<void> {
  // Idempotent, as upstream should publish: a send retried after the broker took it without its
  // answer reaching us would otherwise write the request again, and it would be answered twice.
  const producer = idempotentProducer(deps.kafka);
  await producer.connect();
  if (bulk > 0) {
    const params = sampleParams(BULK_OPERATION);
    const requestedAt = new Date().toISOString();
    await producer.send({
      topic: deps.topics.request(BULK_OPERATION, 'bulk'),
      messages: Array.from({ length: bulk }, (_, i) => ({
        // Keys spread over the partitions; the requests are alike, their ids differ.
        key: `demo-bulk-${i}`,
        value: JSON.stringify({
          requestId: bulkRequestId(runId, i),
          params,
          source: 'demo-bulk',
          requestedAt,
        }),
      })),
    });
    deps.write(`  → ${deps.topics.request(BULK_OPERATION, 'bulk').padEnd(48)} ${bulk} bulk requests`);
  }
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
