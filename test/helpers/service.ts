/**
 * Integration helpers: the real service (startService) against the vendor sandbox and the shared
 * stack, on a random topic prefix and group so that test files never see each other's messages.
 */
import { expect, inject } from 'vitest';
import { join } from 'node:path';
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import type { Consumer, IHeaders, Kafka } from '../../src/kafka/client.js';
import { OPERATIONS, topicNames, type TopicNames } from '../../src/contract/operations.js';
import { startService, type Service, type ServiceOptions } from '../../src/main.js';
import { createRegistryClient } from '../../src/producers/registry-client.js';
import { registryCodec, type ValueCodec } from '../../src/producers/value-codec.js';
import { cpfFor, type Sandbox } from '../../src/sandbox/index.js';
import { atRestEnv } from './at-rest-keys.js';
import { idempotentProducer, kafkaClient, randomName } from './stack.js';
import { HUNG_MS } from './wait.js';

export const SANDBOX_KEY = 'test-key';

export interface TestService {
  service: Service;
  config: Config;
}

/** Environment of a service under test; `overrides` win. */
export function serviceEnv(
  prefix: string,
  sandbox: Sandbox,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    KAFKA_BROKERS: inject('kafkaBrokers'),
    SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
    REDIS_URL: inject('redisUrl'),
    ...atRestEnv(),
    VENDOR_BASE_URL: sandbox.url,
    ALLOW_INSECURE_VENDOR: 'true',
    VENDOR_API_KEY: SANDBOX_KEY,
    TOPIC_PREFIX: prefix,
    KAFKA_GROUP_ID: `${prefix}.service`,
    KAFKA_CLIENT_ID: `${prefix}.service`,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    ADMIN_HOST: '127.0.0.1',
    ADMIN_PORT: '0',
    TOPIC_PARTITIONS: '3',
    COMMIT_INTERVAL_MS: '50',
    VENDOR_RATE_PER_SECOND: '1000',
    VENDOR_MAX_CONCURRENT: '50',
    LOG_LEVEL: 'silent',
    SHUTDOWN_TIMEOUT_MS: '5000',
    ...overrides,
  };
}

export async function startTestService(
  prefix: string,
  sandbox: Sandbox,
  overrides: Record<string, string> = {},
  options: ServiceOptions = {},
): Promise<TestService> {
  const config = loadConfig(serviceEnv(prefix, sandbox, overrides));
  const service = await startService(config, testLogger(prefix, config.LOG_LEVEL), options);
  return { service, config };
}

/**
 * The service's logger: at its configured level, or, for debugging a failing test, at info
 * level into `<TEST_SERVICE_LOG_DIR>/service-<prefix>.log` (as spawned services do).
 */
function testLogger(prefix: string, level: Config['LOG_LEVEL']): Logger {
  const logDir = process.env.TEST_SERVICE_LOG_DIR;
  if (!logDir || !['silent', 'fatal', 'error', 'warn'].includes(level)) return pino({ level });
  return pino(
    { level: 'info' },
    pino.destination({ dest: join(logDir, `service-${prefix}.log`), sync: true }),
  );
}

export function testPrefix(name: string): string {
  return randomName(`t.${name}`).replace(/-/g, '_');
}

/**
 * Requests as large as a test's topic takes (largeValues: up to 8 MiB); the client refuses
 * values over 1 MB by default, before the broker could.
 */
const LARGE_VALUES = { 'message.max.bytes': 10 * 1024 * 1024 };

export interface RequestMessage {
  key: string | null;
  value: object | Buffer;
  headers?: IHeaders;
  /** The message's own timestamp (ms since the epoch); the producer's clock when absent. */
  timestamp?: number;
}

/**
 * Publishes as upstream should: with an idempotent producer (keys partitioned by murmur2, as
 * Java producers do). The client retries a send it did not see succeed, also after the broker
 * appended it (the answer lost with its connection); without idempotence the retry appends
 * those requests again, and each becomes two request messages, rightly answered twice.
 */
export async function publish(kafka: Kafka, topic: string, messages: RequestMessage[]): Promise<void> {
  const producer = idempotentProducer(kafka, LARGE_VALUES);
  await producer.connect();
  try {
    for (let i = 0; i < messages.length; i += 500) {
      await producer.send({
        topic,
        messages: messages.slice(i, i + 500).map((m) => ({
          key: m.key,
          value: Buffer.isBuffer(m.value) ? m.value : JSON.stringify(m.value),
          ...(m.headers ? { headers: m.headers } : {}),
          ...(m.timestamp === undefined ? {} : { timestamp: String(m.timestamp) }),
        })),
      });
    }
  } finally {
    await producer.disconnect();
  }
}

export interface Received {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  headers: Record<string, string>;
  framed: boolean;
  /** The schema id of a framed value. */
  schemaId?: number | undefined;
  value: Record<string, unknown>;
}

/**
 * Reads every output topic of a prefix from the beginning as a read_committed consumer, the way
 * the contract's guarantees are stated, decoding framed values through the registry.
 */
export class OutcomeCollector {
  readonly received: Received[] = [];
  private readonly consumer: Consumer;
  private readonly codec: ValueCodec;
  readonly topics: TopicNames;

  /** `registryUrl`: the registry the outputs are framed against (the shared one by default). */
  constructor(
    kafka: Kafka,
    private readonly prefix: string,
    registryUrl: string = inject('schemaRegistryUrl'),
  ) {
    this.topics = topicNames(prefix);
    this.consumer = kafka.consumer({
      kafkaJS: {
        groupId: `${prefix}.collector`,
        fromBeginning: true,
        readUncommitted: false,
        maxWaitTimeInMs: 100,
      },
    });
    this.codec = registryCodec(createRegistryClient(registryUrl), new Map());
  }

  async start(): Promise<void> {
    await this.consumer.connect();
    await this.consumer.subscribe({
      topics: [
        ...OPERATIONS.map((op) => this.topics.result(op)),
        this.topics.errors,
        this.topics.vehicleSearchEvents,
      ],
    });
    await this.consumer.run({
      eachMessage: async ({ topic, partition, message }) => {
        const value = message.value ?? Buffer.alloc(0);
        const headers: Record<string, string> = {};
        for (const [name, header] of Object.entries(message.headers ?? {})) {
          if (header !== undefined) headers[name] = header.toString();
        }
        this.received.push({
          topic,
          partition,
          offset: message.offset,
          key: message.key ? message.key.toString() : null,
          headers,
          framed: value[0] === 0,
          schemaId: value[0] === 0 && value.length > 5 ? value.readUInt32BE(1) : undefined,
          value: (await this.codec.decode(value)) as Record<string, unknown>,
        });
      },
    });
  }

  results(): Received[] {
    return this.received.filter((r) =>
      r.topic.startsWith(`${this.topics.errors.slice(0, -'errors'.length)}results.`),
    );
  }

  errors(): Received[] {
    return this.received.filter((r) => r.topic === this.topics.errors);
  }

  events(): Received[] {
    return this.received.filter((r) => r.topic === this.topics.vehicleSearchEvents);
  }

  /** Outcomes (results and dead letters) per requestId. */
  outcomesByRequest(): Map<string, Received[]> {
    const byRequest = new Map<string, Received[]>();
    for (const r of [...this.results(), ...this.errors()]) {
      const id = String(r.value.requestId);
      byRequest.set(id, [...(byRequest.get(id) ?? []), r]);
    }
    return byRequest;
  }

  /**
   * Waits until `condition` holds. `budgetMs` is what a healthy run may take; the wait gives up
   * only at the larger of it and HUNG_MS, a ceiling that ends a hung test and never fails a
   * right one on a machine whose cores are busy (issue 40: two suites side by side).
   */
  async waitFor(condition: () => boolean, budgetMs: number, what: string): Promise<void> {
    const ceiling = Math.max(budgetMs, HUNG_MS);
    const deadline = Date.now() + ceiling;
    while (!condition()) {
      if (Date.now() > deadline)
        throw new Error(
          `timed out after ${ceiling} ms waiting for ${what}; received ${this.received.length}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<void> {
    await this.consumer.disconnect();
  }
}

export function testKafka(): Kafka {
  return kafkaClient(inject('kafkaBrokers'));
}

/** lawsuits-summary requests `<tag>-<i>`, each with its own tax id (the sandbox's happy person). */
export function summaryRequests(tag: string, count: number, offset: number): RequestMessage[] {
  return Array.from({ length: count }, (_, i) => {
    const taxId = cpfFor('happy', offset + i);
    return { key: taxId, value: { requestId: `${tag}-${i}`, params: { taxId } } };
  });
}

/**
 * Waits up to `timeoutMs` for `count` outcomes, and a moment more for late duplicates (they
 * would arrive after the last new outcome); then every request tagged `<tag>-…` has exactly one
 * outcome, and there are `count` of them.
 */
export async function expectExactlyOneOutcomeEach(
  collector: OutcomeCollector,
  tag: string,
  count: number,
  timeoutMs: number,
): Promise<void> {
  await collector.waitFor(() => collector.outcomesByRequest().size >= count, timeoutMs, 'every outcome');
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const mine = [...collector.outcomesByRequest().entries()].filter(([id]) => id.startsWith(`${tag}-`));
  expect(mine).toHaveLength(count);
  expect(duplicatedOutcomes(mine)).toEqual([]);
}

/** Requests tagged `tag` (ids `tag-…`) that have an outcome so far. */
export function answeredTagged(collector: OutcomeCollector, tag: string): number {
  return [...collector.outcomesByRequest().keys()].filter((id) => id.startsWith(`${tag}-`)).length;
}

/**
 * Both lanes answered, exactly once each: `counts.interactive` requests tagged `tag` and
 * `counts.bulk` tagged `${tag}bulk`, all seen within `waitMs`, each lane then checked as
 * expectExactlyOneOutcomeEach does (within `checkMs`).
 */
export async function expectExactlyOneOutcomeEachLane(
  collector: OutcomeCollector,
  tag: string,
  counts: { interactive: number; bulk: number },
  { waitMs, checkMs }: { waitMs: number; checkMs: number },
): Promise<void> {
  await collector.waitFor(
    () => collector.outcomesByRequest().size >= counts.interactive + counts.bulk,
    waitMs,
    'every outcome of both lanes',
  );
  await expectExactlyOneOutcomeEach(collector, tag, counts.interactive, checkMs);
  await expectExactlyOneOutcomeEach(collector, `${tag}bulk`, counts.bulk, checkMs);
}

/**
 * Every request with more than one outcome, and for each outcome where it was read and the
 * request message it answers: `id: results.x[0]@7 for requests.x[0]@7, …`. One output position
 * read twice is the reader's doing; two outcomes for one request position, the service's; two
 * request positions, a request published twice upstream.
 */
export function duplicatedOutcomes(byRequest: Iterable<[string, Received[]]>): string[] {
  const position = (topic: unknown, partition: unknown, offset: unknown): string =>
    `${String(topic)}[${String(partition)}]@${String(offset)}`;
  const describe = (o: Received): string => {
    const origin = (o.value.origin ?? {}) as { topic?: string; partition?: number; offset?: string };
    return `${position(o.topic, o.partition, o.offset)} for ${position(origin.topic, origin.partition, origin.offset)}`;
  };
  return [...byRequest]
    .filter(([, outcomes]) => outcomes.length !== 1)
    .map(([id, outcomes]) => `${id}: ${outcomes.map(describe).join(', ')}`);
}

/** How many distinct requests the sandbox billed more than once. */
export function billedTwice(sandbox: Sandbox): number {
  return Object.values(sandbox.counters().byFingerprint).filter((n) => n > 1).length;
}
