import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { Consumer, Kafka, Producer, TopicMessages } from '../kafka/client.js';
import type { OutputRecord } from '../producers/output-records.js';
import { within } from '../within.js';

const { ErrorCodes } = KafkaJS;

/**
 * One transactional producer per process. Its transactional id is stable for a replica (see
 * config: KAFKA_TRANSACTIONAL_ID), so a restarted replica's InitProducerId aborts whatever its
 * previous incarnation left open; a replica that vanished without restarting leaves its open
 * transaction to the transaction timeout. Fencing a zombie is not the transactional id's job
 * here but the group generation's (KIP-447): the offsets go with the consumer's group metadata
 * (`sendOffsets({ consumer })`), and the group coordinator refuses them once that generation is
 * over.
 */
export interface TransactionalProducer {
  /**
   * InitProducerId: aborts what an earlier producer with the same transactional id left open,
   * under a new epoch. Once connected, it resolves at once; after a failed connect, it tries again.
   */
  connect(): Promise<void>;
  /**
   * Sends the records and commits the offsets for the group in one transaction. When it
   * throws, the transaction's outcome is unknown (an EndTxn may have been lost, or may still
   * be on its way): the producer is replaced, and the next connect's InitProducerId bumps the
   * epoch, which ends that transaction (aborted, or committed if EndTxn got there first) and
   * fences every request of it still in flight.
   */
  commit(
    records: readonly OutputRecord[],
    offsets: readonly PartitionOffset[],
    group: GroupHandle,
  ): Promise<void>;
  /**
   * Fences whatever the current producer still has in flight (a new producer, a new epoch):
   * for a round that outlived the revocation of its partitions.
   */
  fence(): Promise<void>;
  close(): Promise<void>;
}

export interface PartitionOffset {
  topic: string;
  partition: number;
  /** The next offset to read. */
  offset: string;
}

/**
 * The consumer whose group the offsets are committed to. `sendOffsets` reads the consumer's
 * group metadata (generation, member id) when it runs, so `owns` is asked right before: a round
 * whose partitions were revoked in the meantime must not commit their offsets under the next
 * generation, where they may belong to someone else.
 */
export interface GroupHandle {
  consumer: Consumer;
  owns(): boolean;
}

export interface TransactionalProducerSettings {
  transactionalId: string;
  transactionTimeoutMs: number;
  /** Told each time a call of the transaction is made again after a transient error (see resumed). */
  onResume?: (call: TransactionCall, error: unknown) => void;
  /** CALL_HANG_MS by default (tests shorten it). */
  callHangMs?: number;
  /**
   * How long a connect (InitProducerId) may take before it is given up: the transaction timeout
   * by default. Longer than a call's: during a coordinator's failover InitProducerId waits for
   * the coordinator (10-15 s), and a connect given up on that completes later fences the
   * producer that replaced it.
   */
  initHangMs?: number;
  /**
   * Told every STALL_REPORT_MS while one step of a commit (InitProducerId, the produce, the
   * offsets, EndTxn, closing a replaced producer) has lasted longer than that: where a round waits.
   */
  onStalled?: (step: CommitStep, ms: number) => void;
}

export type CommitStep = 'init' | 'produce' | 'sendOffsets' | 'commit' | 'close-replaced';

/**
 * How long a call of the transaction (InitProducerId, sendOffsets, commit) may take before it is
 * given up: librdkafka ends each at its own 5 s timeout, save for a known hang.
 * `send_offsets_to_transaction` waits without a bound while its group coordinator request waits
 * for a coordinator that went away (librdkafka#5456, #5511: the coordinator request's timeout is
 * never checked; the call returns only once another broker changes state, such as the dead
 * node coming back). A call given up leaves the transaction to a new producer, whose
 * InitProducerId ends it.
 */
export const CALL_HANG_MS = 8_000;

/** A call of the transaction that did not return within CALL_HANG_MS. */
export class TransactionCallHung extends Error {
  constructor(call: string, ms: number) {
    super(`${call} did not return within ${ms} ms: the transaction is left to a new producer`);
    this.name = 'TransactionCallHung';
  }
}

/** How long a step of a commit may last before it is reported, and how often after that. */
export const STALL_REPORT_MS = 15_000;

export type TransactionCall = 'sendOffsets' | 'commit';

/** The round's partitions were revoked before its offsets were sent: nothing was committed. */
export class RevokedBeforeCommit extends Error {
  constructor() {
    super("the round's partitions were revoked before its offsets were sent");
    this.name = 'RevokedBeforeCommit';
  }
}

/**
 * librdkafka's producer settings for the transactional producer. Batches are gzip-compressed at
 * level 1 (librdkafka sends a batch as it is when compressing does not make it smaller); stock
 * readers of every client can decompress gzip. Values up to the large-value topics' 2 MiB limit
 * (topic setup) must pass the client's own check.
 */
export const TRANSACTIONAL_PRODUCER_SETTINGS = {
  'compression.codec': 'gzip',
  'compression.level': 1,
  'message.max.bytes': 4 * 1024 * 1024,
  'linger.ms': 1,
} as const;

/** The process's `TransactionalProducer`, on Confluent's client (librdkafka). */
export function createTransactionalProducer(
  kafka: Kafka,
  settings: TransactionalProducerSettings,
): TransactionalProducer {
  return new KafkaTransactionalProducer(kafka, settings);
}

class KafkaTransactionalProducer implements TransactionalProducer {
  private producer: Producer;
  private connected: Promise<void> | undefined;
  /** A connect after a failed transaction is under way (reconnect()). */
  private reconnecting = false;
  private closed = false;
  /** The current producer's own connect (InitProducerId), which `connected` may have given up on. */
  private attempt: { producer: Producer; promise: Promise<void>; settled: { done: boolean } } | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly settings: TransactionalProducerSettings,
  ) {
    this.producer = this.create();
  }

  connect(): Promise<void> {
    if (this.connected) return this.connected;
    const attempt = this.producer.connect();
    const settled = { done: false };
    void attempt.then(
      () => (settled.done = true),
      () => (settled.done = true),
    );
    this.attempt = { producer: this.producer, promise: attempt, settled };
    const initHangMs = this.settings.initHangMs ?? this.settings.transactionTimeoutMs;
    const connecting = bounded('InitProducerId', attempt, initHangMs).catch(async (error: unknown) => {
      // A producer whose InitProducerId failed is not tried again: a new one is.
      if (this.connected === connecting) await this.replace();
      throw error;
    });
    this.connected = connecting;
    return connecting;
  }

  async commit(
    records: readonly OutputRecord[],
    offsets: readonly PartitionOffset[],
    group: GroupHandle,
  ): Promise<void> {
    await this.step('init', () => this.connect());
    const producer = this.producer;
    // The broker aborts the transaction past its timeout: resuming a call after that is futile.
    const resumeUntil = Date.now() + this.settings.transactionTimeoutMs;
    try {
      const transaction = await producer.transaction();
      const topicMessages = byTopicMessages(records);
      const sent =
        topicMessages.length > 0
          ? this.step('produce', () => transaction.sendBatch({ topicMessages }))
          : Promise.resolve([]);
      // Asked in the same turn as sendOffsets reads the group metadata (see GroupHandle), before
      // every call of it.
      const owned = (): void => {
        if (!group.owns()) throw new RevokedBeforeCommit();
      };
      const offsetsSent = this.step('sendOffsets', () =>
        resumed(
          () => {
            owned();
            return transaction.sendOffsets({ consumer: group.consumer, topics: byTopic(offsets) });
          },
          resumeUntil,
          this.settings.onResume,
          'sendOffsets',
          this.hangMs,
        ),
      );
      const outcomes = await Promise.allSettled([sent, offsetsSent]);
      for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;
      await this.step('commit', () =>
        resumed(() => transaction.commit(), resumeUntil, this.settings.onResume, 'commit', this.hangMs),
      );
    } catch (error) {
      // A round fenced meanwhile (fence()) already has its replacement.
      if (this.producer === producer) {
        await this.replace();
        this.reconnect();
      }
      throw error;
    }
  }

  async fence(): Promise<void> {
    await this.replace();
    // InitProducerId now, not at the next round: the new epoch ends the old transaction at once,
    // and the partitions' new owner need not wait for the transaction timeout.
    await this.connect().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.attempt?.producer === this.producer && !this.attempt.settled.done;
    // A connect still under way is left to the process's end (see replace()).
    if (this.connected && !pending) await this.producer.disconnect();
  }

  /**
   * After a failed transaction: the new producer's InitProducerId now, not at the next round. The
   * broker keeps the failed transaction open, and the last stable offset of every partition it
   * wrote to with it, until a new epoch ends it or its timeout passes (then up to the
   * coordinator's 10 s check more). A replica left without work after a rebalance has no next
   * round: its failed transaction held the outputs of the partitions' new owners from every
   * read_committed reader for 37 s. Tried again while it fails, until the broker would have
   * ended the transaction by itself.
   */
  private reconnect(): void {
    if (this.reconnecting) return;
    this.reconnecting = true;
    const until = Date.now() + this.settings.transactionTimeoutMs;
    void (async () => {
      try {
        while (!this.closed && Date.now() < until) {
          try {
            await this.connect();
            return;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, RECONNECT_PAUSE_MS));
          }
        }
      } finally {
        this.reconnecting = false;
      }
    })();
  }

  private get hangMs(): number {
    return this.settings.callHangMs ?? CALL_HANG_MS;
  }

  private create(): Producer {
    return this.kafka.producer({
      kafkaJS: {
        transactionalId: this.settings.transactionalId,
        idempotent: true,
        maxInFlightRequests: 5,
        transactionTimeout: this.settings.transactionTimeoutMs,
        acks: -1,
      },
      ...TRANSACTIONAL_PRODUCER_SETTINGS,
    });
  }

  /**
   * A failed transaction is never ended with EndTxn(abort), nor retried: under the same epoch
   * (librdkafka sends EndTxn v1: no KIP-890 part 2 yet) a request of it delayed past its timeout,
   * an EndTxn or a TxnOffsetCommit, could still land in the next transaction, and commit offsets
   * whose outputs were aborted (Jepsen's Bufstream analysis, 2024; KIP-890). A new producer with
   * the same transactional id starts clean: its InitProducerId bumps the epoch, which fences
   * every request of the old one, and aborts what it left open. It also mends a producer that
   * librdkafka put in a fatal state (fenced after the transaction timeout).
   */
  private async replace(): Promise<void> {
    const old = this.producer;
    const wasConnected = this.connected;
    const attempt = this.attempt?.producer === old ? this.attempt : undefined;
    this.producer = this.create();
    this.connected = undefined;
    this.attempt = undefined;
    if (!wasConnected) return;
    if (attempt && !attempt.settled.done) {
      // A connect given up on (InitProducerId hung) is closed once it ends: the client throws,
      // outside any promise, when its ready event finds the producer disconnecting.
      void attempt.promise
        .catch(() => undefined)
        .then(() => old.disconnect())
        .catch(() => undefined);
      return;
    }
    // Bounded: a producer librdkafka holds in a fatal state may take its time to close, and the
    // new one (a new epoch) fences it whatever it still does.
    await this.step('close-replaced', () => settledWithin(old.disconnect(), DISCONNECT_WAIT_MS));
  }

  /** Runs one step of a commit, reporting it while it lasts past STALL_REPORT_MS (onStalled). */
  private async step<T>(name: CommitStep, run: () => Promise<T>): Promise<T> {
    const onStalled = this.settings.onStalled;
    if (!onStalled) return run();
    const startedAt = Date.now();
    const timer = setInterval(() => {
      onStalled(name, Date.now() - startedAt);
    }, STALL_REPORT_MS);
    timer.unref();
    try {
      return await run();
    } finally {
      clearInterval(timer);
    }
  }
}

/**
 * Errors after which librdkafka's transaction is still whole and the same call may be made again:
 * the call's own timeout (the request is still on its way: the next call waits for its answer),
 * a coordinator that moved, is loading or is unreachable for now (librdkafka retries these within
 * the call's time and then hands them back). Anything else (a message that timed out, a refused
 * generation, a fenced epoch) ends the transaction: the producer is replaced. A call made again
 * on a transaction librdkafka has meanwhile put in an error state fails with that state, and the
 * producer is replaced then.
 */
const RESUMABLE_CODES: ReadonlySet<number> = new Set([
  ErrorCodes.ERR__TIMED_OUT,
  ErrorCodes.ERR__TIMED_OUT_QUEUE,
  ErrorCodes.ERR__TRANSPORT,
  ErrorCodes.ERR_REQUEST_TIMED_OUT,
  ErrorCodes.ERR_COORDINATOR_NOT_AVAILABLE,
  ErrorCodes.ERR_NOT_COORDINATOR,
  ErrorCodes.ERR_COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCodes.ERR_CONCURRENT_TRANSACTIONS,
]);

/** A pause before a call that failed at once is made again. */
const RESUME_PAUSE_MS = 250;

/** Whether a transaction call's error leaves the transaction whole (RESUMABLE_CODES). */
export function isResumable(error: unknown): boolean {
  if (error instanceof RevokedBeforeCommit) return false;
  const code = errorCode(error);
  return (
    (error as { retriable?: unknown }).retriable === true || (code !== undefined && RESUMABLE_CODES.has(code))
  );
}

/**
 * Makes a transaction call again while it fails with a resumable error and `until` has not
 * passed: the transaction goes on instead of being redone (a coordinator's failover outlasts
 * the client's fixed 5 s per call).
 */
async function resumed<T>(
  call: () => Promise<T>,
  until: number,
  onResume: TransactionalProducerSettings['onResume'],
  name: TransactionCall,
  hangMs: number,
): Promise<T> {
  for (;;) {
    const startedAt = Date.now();
    try {
      return await bounded(name, call(), hangMs);
    } catch (error) {
      if (!isResumable(error) || Date.now() >= until) throw error;
      onResume?.(name, error);
      if (Date.now() - startedAt < RESUME_PAUSE_MS) await new Promise((r) => setTimeout(r, RESUME_PAUSE_MS));
    }
  }
}

/** The call's outcome, or TransactionCallHung once `ms` passed without one. */
function bounded<T>(name: string, call: Promise<T>, ms: number): Promise<T> {
  return within(call, ms, () => new TransactionCallHung(name, ms));
}

/** The pause between two connects after a failed transaction (reconnect()). */
const RECONNECT_PAUSE_MS = 1_000;

/** How long a replaced producer may take to close before it is left to itself. */
const DISCONNECT_WAIT_MS = 5_000;

async function settledWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([promise.catch(() => undefined), waited]);
  clearTimeout(timer);
}

function byTopicMessages(records: readonly OutputRecord[]): TopicMessages[] {
  const topics = new Map<string, TopicMessages>();
  for (const record of records) {
    let topicMessages = topics.get(record.topic);
    if (!topicMessages) {
      topicMessages = { topic: record.topic, messages: [] };
      topics.set(record.topic, topicMessages);
    }
    topicMessages.messages.push({ key: record.key, value: record.value, headers: record.headers });
  }
  return [...topics.values()];
}

function byTopic(
  offsets: readonly PartitionOffset[],
): { topic: string; partitions: { partition: number; offset: string }[] }[] {
  const topics = new Map<string, { partition: number; offset: string }[]>();
  for (const { topic, partition, offset } of offsets) {
    let partitions = topics.get(topic);
    if (!partitions) {
      partitions = [];
      topics.set(topic, partitions);
    }
    partitions.push({ partition, offset });
  }
  return [...topics].map(([topic, partitions]) => ({ topic, partitions }));
}

/** The group coordinator's answers to offsets from a member outside the current generation. */
const REFUSED_MEMBER_CODES = new Set<number>([
  ErrorCodes.ERR_ILLEGAL_GENERATION,
  ErrorCodes.ERR_UNKNOWN_MEMBER_ID,
  ErrorCodes.ERR_FENCED_INSTANCE_ID,
  ErrorCodes.ERR_REBALANCE_IN_PROGRESS,
]);

/** Offsets refused because this member's generation is over, or its partitions were revoked. */
export function isRefusedMember(error: unknown): boolean {
  if (error instanceof RevokedBeforeCommit) return true;
  const code = errorCode(error);
  return code !== undefined && REFUSED_MEMBER_CODES.has(code);
}

/** Another producer took our transactional id, or the broker timed our transaction out. */
export function isProducerFenced(error: unknown): boolean {
  const code = errorCode(error);
  return (
    code === ErrorCodes.ERR_INVALID_PRODUCER_EPOCH ||
    code === ErrorCodes.ERR_PRODUCER_FENCED ||
    code === ErrorCodes.ERR__FENCED
  );
}

/** librdkafka's error code of a client error, also under `cause`. */
export function errorCode(error: unknown): number | undefined {
  for (let e = error, depth = 0; e && depth < 4; depth += 1) {
    const { code, cause } = e as { code?: unknown; cause?: unknown };
    if (typeof code === 'number') return code;
    e = cause;
  }
  return undefined;
}
