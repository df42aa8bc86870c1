/**
 * The project's one door to Kafka: Confluent's client (@confluentinc/kafka-javascript, librdkafka
 * underneath), through its KafkaJS-compatible API. Every Kafka client of the service, the audit
 * commands, the console, the demo, the tests and the benchmarks is made here, so that security,
 * logging and the settings that keep our guarantees are set in one place.
 */
import rdkafka, {
  KafkaJS,
  type ConsumerGlobalConfig,
  type KafkaConsumer,
  type LibrdKafkaError,
} from '@confluentinc/kafka-javascript';
import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type { KafkaSecurity } from '../config-transport.js';

/**
 * The client's KafkaJS-compatible layer turns a librdkafka error with code 15
 * (COORDINATOR_NOT_AVAILABLE, which a killed coordinator gives `sendOffsets`) into
 * `new KafkaJSGroupCoordinatorNotAvailableError(...)`, a class its error module does not define
 * (1.10.1): the TypeError it throws inside the client's callback took the whole process down
 * (seen on a three-node cluster when the node coordinating the group was killed). The class is
 * supplied here, as the coordinator-not-found error it stands for; the transaction then fails
 * as any other and is tried again (test/unit/kafka/coordinator-error.test.ts).
 */
const compatErrors = createRequire(import.meta.url)(
  '@confluentinc/kafka-javascript/lib/kafkajs/_error.js',
) as Record<string, unknown>;
if (compatErrors.KafkaJSGroupCoordinatorNotAvailableError === undefined) {
  compatErrors.KafkaJSGroupCoordinatorNotAvailableError = class extends KafkaJS.KafkaJSError {};
}

/**
 * The admin client without the two calls that can take the whole process down (1.10.1,
 * librdkafka 2.15), each with a safe way round:
 *
 * - `describeGroups`: a group described with an error (a coordinator still loading, as on a
 *   broker just started) leaves the description's assignor NULL, which the binding turns into a
 *   string: a segmentation fault (confluent-kafka-javascript#531). It failed one CI run in three
 *   this way, in the test run's first group request (test/global-setup.ts).
 * - `fetchOffsets`: an OffsetFetch answered NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE makes
 *   librdkafka ask the handle's consumer group to look its coordinator up again, and an admin
 *   client has none: a NULL dereference (rd_kafka_handle_OffsetFetch, confluent-kafka-javascript#374).
 *   A group's offsets are read through `openGroupOffsetsReader` (a consumer's committed()).
 */
export type Admin = Omit<KafkaJS.Admin, 'describeGroups' | 'fetchOffsets'>;
/** A client whose admin() is the `Admin` above. */
export type Kafka = Omit<KafkaJS.Kafka, 'admin'> & { admin(): Admin };
export type Consumer = KafkaJS.Consumer;
export type Producer = KafkaJS.Producer;
export type KafkaMessage = KafkaJS.KafkaMessage;
export type EachBatchPayload = KafkaJS.EachBatchPayload;
export type Batch = KafkaJS.Batch;
export type IHeaders = KafkaJS.IHeaders;
export type Message = KafkaJS.Message;
export type TopicMessages = KafkaJS.TopicMessages;
export type ITopicConfig = KafkaJS.ITopicConfig;
export type ProducerConstructorConfig = KafkaJS.ProducerConstructorConfig;
export type ConsumerConstructorConfig = KafkaJS.ConsumerConstructorConfig;

export const { logLevel } = KafkaJS;

/** What a client is made from. */
export interface KafkaClientSettings {
  brokers: readonly string[];
  clientId?: string;
  security?: KafkaSecurity;
  /** Where the client's own logs go (warnings and errors; transient ones at debug). */
  logger?: Logger;
  /** Milliseconds a request to a broker may take (librdkafka's socket.timeout.ms). */
  requestTimeoutMs?: number;
  /** How long a first connection may take before it counts as failed. */
  connectionTimeoutMs?: number;
  /**
   * Retries of a failed admin or metadata request (KafkaJS-compatible settings: audit commands want an answer
   * in seconds, not minutes).
   */
  retry?: { retries: number; initialRetryTime?: number; maxRetryTime?: number };
  /** librdkafka's `debug` contexts (e.g. `eos,cgrp`): its debug lines go to the logger at debug. */
  debug?: string;
}

/** A Kafka client factory with the project's settings. */
export function createKafka(settings: KafkaClientSettings): Kafka {
  const { security = {} } = settings;
  const errors: string[] = [];
  const kafkaJS: KafkaJS.KafkaConfig = {
    brokers: [...settings.brokers],
    ...(settings.clientId === undefined ? {} : { clientId: settings.clientId }),
    ...(security.ssl === undefined ? {} : { ssl: true }),
    ...(security.sasl === undefined ? {} : { sasl: security.sasl }),
    ...(settings.connectionTimeoutMs === undefined
      ? {}
      : { connectionTimeout: settings.connectionTimeoutMs }),
    ...(settings.requestTimeoutMs === undefined ? {} : { requestTimeout: settings.requestTimeoutMs }),
    ...(settings.retry === undefined ? {} : { retry: settings.retry }),
    logLevel: settings.logger ? logLevel.WARN : logLevel.ERROR,
    logger: pinoKafkaLogger(settings.logger, errors),
  };
  const kafka = new KafkaJS.Kafka({
    kafkaJS,
    ...tlsFiles(security),
    ...(settings.debug === undefined ? {} : { debug: settings.debug }),
  });
  recentErrors.set(kafka, errors);
  return kafka;
}

/** The client's last error lines (at most RECENT_ERRORS), per client. */
const recentErrors = new WeakMap<Kafka, string[]>();
const RECENT_ERRORS = 20;

/**
 * What the client logged at error level lately: librdkafka reports a refused login or an
 * untrusted certificate there, while the request that failed says only "broker transport
 * failure" (kafka-connect-errors.ts reads them).
 */
export function recentClientErrors(kafka: Kafka): readonly string[] {
  return recentErrors.get(kafka) ?? [];
}

/**
 * A producer of single records or batches outside transactions: idempotent (a retried send is
 * stored once), acknowledged by every in-sync replica, topics never created by a send. The
 * client's default partitioner is Java's (murmur2 of the key).
 */
export function idempotentProducer(kafka: Pick<Kafka, 'producer'>): Producer {
  return kafka.producer({ kafkaJS: { idempotent: true, acks: -1, allowAutoTopicCreation: false } });
}

/**
 * A consumer of the client's lower-level API (librdkafka's own), for reading given partitions
 * over given offsets: it is assigned them (no group is joined, nothing is committed), reads
 * read_committed, and says when it reaches a partition's end (`partition.eof`), transaction
 * markers and aborted records included, which the KafkaJS-compatible API cannot tell.
 */
export function createPartitionConsumer(settings: KafkaClientSettings, groupId: string): KafkaConsumer {
  const config: ConsumerGlobalConfig = {
    ...librdkafkaSettings(settings),
    'group.id': groupId,
    'enable.auto.commit': false,
    'enable.auto.offset.store': false,
    'isolation.level': 'read_committed',
    'enable.partition.eof': true,
    'fetch.wait.max.ms': 250,
  };
  // A partition assigned at an offset retention has deleted since reads from its start.
  // The lower-level classes are CommonJS exports Node's named-export detection cannot see.
  return new rdkafka.KafkaConsumer(config, { 'auto.offset.reset': 'earliest' });
}

/** The settings above as librdkafka's own properties. */
export function librdkafkaSettings(settings: KafkaClientSettings): ConsumerGlobalConfig {
  const { security = {} } = settings;
  const sasl = security.sasl;
  const protocol = `${sasl ? 'sasl_' : ''}${security.ssl === undefined ? 'plaintext' : 'ssl'}` as const;
  return {
    'bootstrap.servers': settings.brokers.join(','),
    ...(settings.clientId === undefined ? {} : { 'client.id': settings.clientId }),
    'security.protocol': protocol,
    ...(sasl
      ? {
          'sasl.mechanisms': sasl.mechanism.toUpperCase(),
          'sasl.username': sasl.username,
          'sasl.password': sasl.password,
        }
      : {}),
    ...tlsFiles(security),
    ...(settings.requestTimeoutMs === undefined ? {} : { 'socket.timeout.ms': settings.requestTimeoutMs }),
    ...(settings.connectionTimeoutMs === undefined
      ? {}
      : { 'socket.connection.setup.timeout.ms': settings.connectionTimeoutMs }),
    ...(settings.debug === undefined ? {} : { debug: settings.debug }),
  };
}

/** librdkafka's PEM settings from the CA, certificate and key read at start-up. */
function tlsFiles(security: KafkaSecurity): Record<string, string> {
  const ssl = security.ssl;
  if (ssl === undefined || ssl === true) return {};
  const pem: Record<string, string> = {};
  if (ssl.ca !== undefined) pem['ssl.ca.pem'] = ssl.ca;
  if (ssl.cert !== undefined) pem['ssl.certificate.pem'] = ssl.cert;
  if (ssl.key !== undefined) pem['ssl.key.pem'] = ssl.key;
  return pem;
}

/**
 * Answers a broker gives while it starts, moves a coordinator or elects leaders. The client
 * retries them by itself; they are normal around a broker's restart, so they go to debug.
 */
const TRANSIENT = [
  /coordinator (is )?(loading|not available)/i,
  // librdkafka's words for COORDINATOR_LOAD_IN_PROGRESS (a broker starting).
  /coordinator load in progress/i,
  /not (the )?(correct )?coordinator/i,
  /not (the )?leader/i,
  /leader not available/i,
  /no leader/i,
  /unknown topic or partition/i,
  /concurrent transactions/i,
  // CONCURRENT_TRANSACTIONS in the broker's words: the previous transaction's markers are still
  // being written, and the producer asks again within milliseconds.
  /another concurrent operation on the same transaction/i,
  /broker transport failure/i,
  /connection refused/i,
  /all broker connections are down/i,
  /disconnected/i,
];

/**
 * The client's logger interface, into pino (when given): constant messages, context in the
 * object. Error lines are also kept in `errors` (the last RECENT_ERRORS).
 */
export function pinoKafkaLogger(logger: Logger | undefined, errors: string[] = []): KafkaJS.Logger {
  const child = logger?.child({ component: 'kafka' });
  const write =
    (level: 'error' | 'warn' | 'info' | 'debug') =>
    (message: string, extra?: object): void => {
      if (level === 'error') {
        errors.push(message);
        if (errors.length > RECENT_ERRORS) errors.shift();
      }
      if (!child) return;
      const context = { ...(extra ?? {}) };
      const transient = TRANSIENT.some((pattern) => pattern.test(message));
      // The client's info lines (connected, rebalanced...) are routine: debug.
      if (transient || level === 'debug' || level === 'info') child.debug(context, message);
      else child[level](context, message);
    };
  const adapter: KafkaJS.Logger = {
    error: write('error'),
    warn: write('warn'),
    info: write('info'),
    debug: write('debug'),
    namespace: () => adapter,
    setLogLevel: () => undefined,
  };
  return adapter;
}

/** The part of the admin client a reader of one group's committed offsets stands in for. */
export type OffsetsAdmin = Pick<KafkaJS.Admin, 'fetchOffsets'>;

/**
 * A reader of one consumer group's committed offsets, through a consumer of the client's
 * lower-level API that joins nothing: librdkafka's `committed()`, which asks the group's
 * coordinator with OffsetFetch as a consumer does, not through the admin API. librdkafka 2.15
 * aborts the whole process on an admin request to a group coordinator that dies while it
 * answers (`rd_kafka_enq_once_del_source_return: Assertion eonce->refcnt > 0`, seen in the
 * cluster fault suite), so the service asks its group's offsets this way.
 *
 * `stable`: read with require_stable (isolation.level read_committed): while a transaction holds
 * a partition's offsets, librdkafka asks again until `timeoutMs`, then the read fails with
 * ERR__TIMED_OUT. Topics given by name are read for every partition (`partitionsOf`).
 */
export interface GroupOffsetsReader extends OffsetsAdmin {
  /**
   * A topic's partition ids, from a metadata request to any broker that is up. Not through the
   * admin client: its DescribeTopics goes to the controller it last heard of, and in KRaft that
   * is whichever broker a metadata answer named; once that broker is dead every call waits out
   * its timeout while holding a thread of libuv's pool (the admin client refreshes that name
   * every 5 minutes). Calls of the kind, piled up by the lag watch and the readiness check, took
   * the whole pool while one broker of three was down: nothing else of the client ran (no
   * consume, no new producer) until it came back.
   */
  partitionsOf(topic: string): Promise<number[]>;
  /**
   * A topic's low and high watermarks per partition, as the admin client's fetchTopicOffsets
   * gives them, with the partitions from `partitionsOf`: ListOffsets goes to each leader.
   */
  fetchTopicOffsets(topic: string): Promise<TopicPartitionEnds[]>;
  close(): Promise<void>;
}

/** One partition's ends, as fetchTopicOffsets gives them. */
export interface TopicPartitionEnds {
  partition: number;
  low: string;
  high: string;
}

/** The bound of each metadata or ListOffsets request of a GroupOffsetsReader. */
const CLUSTER_READ_MS = 5_000;

export async function openGroupOffsetsReader(
  settings: KafkaClientSettings,
  groupId: string,
  options: { stable: boolean; timeoutMs: number },
): Promise<GroupOffsetsReader> {
  const consumer = new rdkafka.KafkaConsumer(
    {
      ...librdkafkaSettings(settings),
      'group.id': groupId,
      'enable.auto.commit': false,
      'isolation.level': options.stable ? 'read_committed' : 'read_uncommitted',
    },
    {},
  );
  await connectConsumer(consumer);
  // Shares the consumer's handle: no connections of its own.
  const admin = rdkafka.AdminClient.createFrom(consumer);
  const calls = new NativeCalls();
  const partitionsOf = (topic: string): Promise<number[]> =>
    calls.run(() => topicPartitions(consumer, topic, CLUSTER_READ_MS));
  return {
    partitionsOf,
    fetchTopicOffsets: (topic) =>
      topicEnds(topic, partitionsOf, (specs) => calls.run(() => listOffsets(admin, specs))),
    async fetchOffsets({ groupId: asked, topics = [] }) {
      if (asked !== groupId) throw new Error(`this reader reads the offsets of ${groupId}, not ${asked}`);
      const wanted = await Promise.all(
        topics.map(async (t) =>
          typeof t === 'string' ? { topic: t, partitions: await partitionsOf(t) } : t,
        ),
      );
      const toppars = wanted.flatMap(({ topic, partitions }) =>
        partitions.map((partition) => ({ topic, partition })),
      );
      if (toppars.length === 0) return [];
      const read = await calls.run(() => committedOf(consumer, toppars, options.timeoutMs));
      return wanted.map(({ topic }) => ({
        topic,
        partitions: read
          .filter((entry) => entry.topic === topic)
          .map(({ partition, offset }) => ({
            partition,
            offset: String(offset ?? -1001),
            metadata: null,
            leaderEpoch: null,
            error: null,
          })),
      }));
    },
    async close() {
      await calls.drain();
      await closeConsumer(consumer);
    },
  };
}

/**
 * The native calls of one client under way, so that it is destroyed only once they ended: a call
 * still running when its handle is destroyed crashes the process (ListOffsets read the freed
 * handle: SIGSEGV, seen when the service stopped during a lag read).
 */
class NativeCalls {
  private readonly running = new Set<Promise<unknown>>();
  private closed = false;

  run<T>(call: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the client is closed'));
    const running = call();
    this.running.add(running);
    const forget = (): void => {
      this.running.delete(running);
    };
    running.then(forget, forget);
    return running;
  }

  /** Refuses new calls and waits for those under way (each bounded by its own timeout). */
  async drain(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.running]);
  }
}

function connectConsumer(consumer: KafkaConsumer): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    consumer.connect({ timeout: 30_000 }, (error) => {
      if (isClientError(error)) reject(asError(error));
      else resolve();
    });
  });
}

/** A topic's low and high watermarks per partition. */
async function topicEnds(
  topic: string,
  partitionsOf: (topic: string) => Promise<number[]>,
  list: (
    specs: { topic: string; partition: number; offset: rdkafka.OffsetSpec }[],
  ) => Promise<Map<number, number>>,
): Promise<TopicPartitionEnds[]> {
  const partitions = await partitionsOf(topic);
  const ends = (offset: rdkafka.OffsetSpec) =>
    list(partitions.map((partition) => ({ topic, partition, offset })));
  const high = await ends(rdkafka.OffsetSpec.LATEST);
  const low = await ends(rdkafka.OffsetSpec.EARLIEST);
  return partitions.map((partition) => {
    const [h, l] = [high.get(partition), low.get(partition)];
    if (h === undefined || l === undefined)
      throw new Error(`no offsets answered for ${topic} partition ${partition}`);
    return { partition, high: String(h), low: String(l) };
  });
}

/** ListOffsets for the given partitions of one topic: each partition's offset. */
function listOffsets(
  admin: rdkafka.IAdminClient,
  specs: { topic: string; partition: number; offset: rdkafka.OffsetSpec }[],
): Promise<Map<number, number>> {
  return new Promise((resolve, reject) => {
    admin.listOffsets(specs, { timeout: CLUSTER_READ_MS }, (error, result) => {
      if (isClientError(error)) {
        reject(asError(error));
        return;
      }
      const failed = result.find((entry) => entry.error);
      if (failed?.error) reject(asError(failed.error));
      else resolve(new Map(result.map((entry) => [entry.partition, entry.offset])));
    });
  });
}

/** A topic's partition ids, by a metadata request to any broker that is up; exported for its test. */
export function topicPartitions(
  client: Pick<KafkaConsumer, 'getMetadata'>,
  topic: string,
  timeoutMs: number,
): Promise<number[]> {
  return new Promise((resolve, reject) => {
    client.getMetadata({ topic, timeout: timeoutMs }, (error, metadata) => {
      if (isClientError(error)) {
        reject(asError(error));
        return;
      }
      const found = metadata.topics.find((t) => t.name === topic);
      if (found === undefined || found.partitions.length === 0) {
        reject(new Error(`topic ${topic} is not in the cluster's metadata`));
        return;
      }
      resolve(found.partitions.map((p) => p.id).sort((a, b) => a - b));
    });
  });
}

/** librdkafka's committed() as a promise; exported for its test. */
export function committedOf(
  consumer: Pick<KafkaConsumer, 'committed'>,
  toppars: { topic: string; partition: number }[],
  timeoutMs: number,
): Promise<{ topic: string; partition: number; offset?: number }[]> {
  return new Promise((resolve, reject) => {
    consumer.committed(toppars, timeoutMs, (error, offsets) => {
      if (isClientError(error)) {
        reject(asError(error));
        return;
      }
      // A partition the coordinator answered with an error comes back as an Error in its place,
      // with no topic or partition: the read as a whole is unknown, never "nothing committed".
      const failed = (offsets as unknown[]).find((entry) => entry instanceof Error);
      if (failed) reject(new Error(`the group's committed offsets could not be read: ${failed.message}`));
      else resolve(offsets);
    });
  });
}

function closeConsumer(consumer: KafkaConsumer): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!consumer.isConnected()) {
      resolve();
      return;
    }
    consumer.disconnect(() => {
      resolve();
    });
  });
}

/** The client's callbacks type their error as always there; it is null on success. */
export function isClientError(error: LibrdKafkaError | null | undefined): error is LibrdKafkaError {
  return error !== null && error !== undefined;
}

/** A librdkafka error as an Error with its code. */
export function asError(error: LibrdKafkaError): Error {
  return Object.assign(new Error(error.message), { code: error.code });
}
