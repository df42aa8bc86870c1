/**
 * The steady stream of requests (lawsuits-summary, one distinct valid CPF each) and the
 * read_committed observer that counts, per requestId, the copies in the request topic and the
 * outcomes (results and dead letters) written for them.
 */
import { topicNames } from '../src/contract/operations.js';
import type { Consumer, Kafka, Producer } from '../src/kafka/client.js';
import { cpfFor } from '../src/sandbox/index.js';

export const OPERATION = 'lawsuits-summary';

export interface SentRequest {
  requestId: string;
  taxId: string;
  /** When the broker acknowledged it. */
  ackedAt: number;
}

/** Publishes `ratePerSecond` requests in ticks of 100 ms; a failed send is tried again. */
export class RequestStream {
  readonly sent: SentRequest[] = [];
  private readonly producer: Producer;
  private timer: NodeJS.Timeout | undefined;
  private pending: { requestId: string; taxId: string }[] = [];
  private next = 0;
  private sending = false;
  sendFailures = 0;

  constructor(
    kafka: Kafka,
    private readonly prefix: string,
    private readonly tag: string,
    private readonly cpfOffset: number,
  ) {
    // Not idempotent, as many an upstream is: a send retried after the broker wrote it is a
    // duplicate request, which the observer counts. A send fails within seconds while the
    // cluster cannot take it (then tried again with the next tick), not after five minutes.
    this.producer = kafka.producer({
      kafkaJS: { idempotent: false, acks: -1, retry: { retries: 3, maxRetryTime: 2_000 } },
      'message.timeout.ms': 10_000,
    });
  }

  async start(ratePerSecond: number): Promise<void> {
    await this.producer.connect();
    const perTick = Math.max(1, Math.round(ratePerSecond / 10));
    this.timer = setInterval(() => void this.tick(perTick), 100);
  }

  /** Ends the stream; requests still pending are sent. */
  async halt(): Promise<void> {
    clearInterval(this.timer);
    while (this.sending) await new Promise((resolve) => setTimeout(resolve, 50));
    if (this.pending.length > 0) await this.send(this.pending.splice(0));
  }

  async close(): Promise<void> {
    try {
      await this.halt();
    } finally {
      await this.producer.disconnect();
    }
  }

  /** Publishes these requests again, as an upstream system retrying would. */
  async republish(requests: readonly SentRequest[]): Promise<void> {
    await this.send(requests.map(({ requestId, taxId }) => ({ requestId, taxId })));
  }

  private async tick(perTick: number): Promise<void> {
    if (this.sending) return;
    for (let i = 0; i < perTick; i += 1) {
      const index = this.next++;
      this.pending.push({
        requestId: `${this.tag}-${index}`,
        taxId: cpfFor('happy', this.cpfOffset + index),
      });
    }
    this.sending = true;
    try {
      await this.send(this.pending);
      this.pending = [];
    } catch {
      // Kept in `pending`: sent with the next tick. A send that failed after the broker wrote it
      // makes an upstream duplicate, which the observer counts from the request topic itself.
      this.sendFailures += 1;
    } finally {
      this.sending = false;
    }
  }

  private async send(batch: readonly { requestId: string; taxId: string }[]): Promise<void> {
    if (batch.length === 0) return;
    await this.producer.send({
      topic: topicNames(this.prefix).request(OPERATION),
      messages: batch.map(({ requestId, taxId }) => ({
        key: taxId,
        value: JSON.stringify({ requestId, params: { taxId } }),
      })),
    });
    const ackedAt = Date.now();
    for (const { requestId, taxId } of batch) this.sent.push({ requestId, taxId, ackedAt });
  }
}

export interface RequestTally {
  copies: number;
  outcomes: number;
  deadLetters: number;
  firstOutcomeAt?: number;
}

/** Outcome values framed with one schema id on one topic, by the time they were written. */
export interface FramedValues {
  topic: string;
  schemaId: number;
  writtenAt: number[];
}

export class OutcomeObserver {
  readonly byRequest = new Map<string, RequestTally>();
  readonly framed = new Map<string, FramedValues>();
  /** When each outcome arrived. */
  readonly outcomeTimes: number[] = [];
  /**
   * Every record read, in arrival order: [arrived at, topic, partition, the record's own
   * timestamp]. Tells a stall of the outputs (requests keep arriving) from one of this reader.
   */
  readonly arrivals: [number, string, number, number][] = [];
  lastOutcomeAt = 0;
  private readonly consumer: Consumer;
  /** A consumer restarted after a broker outage reads again from its last commit. */
  private readonly seen = new Set<string>();
  private readonly requestTopic: string;
  private readonly errorsTopic: string;
  private readonly topics: string[];

  constructor(kafka: Kafka, prefix: string) {
    const topics = topicNames(prefix);
    this.requestTopic = topics.request(OPERATION);
    this.errorsTopic = topics.errors;
    this.topics = [this.requestTopic, topics.result(OPERATION), topics.errors];
    // read_committed: an outcome counts once its transaction committed. The client rejoins by
    // itself after a broker outage (no restartOnFailure to set).
    this.consumer = kafka.consumer({
      kafkaJS: {
        groupId: `${prefix}.chaos-observer`,
        fromBeginning: true,
        readUncommitted: false,
        maxWaitTimeInMs: 100,
        retry: { retries: 1_000, maxRetryTime: 2_000 },
      },
      'js.consumer.max.batch.size': -1,
    });
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: this.topics });
    await this.consumer.run({
      eachMessage: ({ topic, partition, message }) => {
        const where = `${topic}:${partition}:${message.offset}`;
        if (this.seen.has(where)) return Promise.resolve();
        this.seen.add(where);
        this.arrivals.push([Date.now(), topic, partition, Number(message.timestamp)]);
        const requestId = requestIdOf(message.value);
        if (requestId === undefined) return Promise.resolve();
        const tally = this.tally(requestId);
        if (topic === this.requestTopic) tally.copies += 1;
        else {
          tally.outcomes += 1;
          if (topic === this.errorsTopic) tally.deadLetters += 1;
          const now = Date.now();
          tally.firstOutcomeAt ??= now;
          this.lastOutcomeAt = now;
          this.outcomeTimes.push(now);
          this.noteFraming(topic, message.value, Number(message.timestamp));
        }
        return Promise.resolve();
      },
    });
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }

  /** Requests seen in the request topic whose outcomes have not all arrived yet. */
  unanswered(): number {
    let count = 0;
    for (const tally of this.byRequest.values()) if (tally.outcomes < tally.copies) count += 1;
    return count;
  }

  copiesSeen(): number {
    let count = 0;
    for (const tally of this.byRequest.values()) count += tally.copies;
    return count;
  }

  private noteFraming(topic: string, value: Buffer | null, writtenAt: number): void {
    if (value === null || value.length <= 5 || value[0] !== 0) return;
    const schemaId = value.readInt32BE(1);
    const key = `${topic}:${schemaId}`;
    let framed = this.framed.get(key);
    if (framed === undefined) {
      framed = { topic, schemaId, writtenAt: [] };
      this.framed.set(key, framed);
    }
    framed.writtenAt.push(writtenAt);
  }

  private tally(requestId: string): RequestTally {
    let tally = this.byRequest.get(requestId);
    if (tally === undefined) {
      tally = { copies: 0, outcomes: 0, deadLetters: 0 };
      this.byRequest.set(requestId, tally);
    }
    return tally;
  }
}

/**
 * The requestId of a request, result or dead letter. Framed values (Confluent wire format:
 * magic byte 0, 4-byte schema id) carry JSON after the header; reading it without the registry
 * keeps the count right while the registry is down or has forgotten its ids.
 */
export function requestIdOf(value: Buffer | null): string | undefined {
  if (value === null || value.length === 0) return undefined;
  const json = value[0] === 0 && value.length > 5 ? value.subarray(5) : value;
  try {
    const parsed: unknown = JSON.parse(json.toString('utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const id = (parsed as { requestId?: unknown }).requestId;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
