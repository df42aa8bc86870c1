import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { OffsetsAdmin, Consumer, ConsumerConstructorConfig, Kafka } from '../kafka/client.js';
import type { Logger } from 'pino';
import { LANES, type Operation, type TopicNames } from '../contract/operations.js';
import type { Tracing } from '../observability/tracing.js';
import type { OutputDeps } from '../producers/output-records.js';
import { BreakerPauses } from './breaker-pauses.js';
import type { CircuitBreaker } from '../requests/circuit-breaker.js';
import { CommitLoop } from './commit-loop.js';
import { createTransactionalProducer, type TransactionalProducer } from './transactional-producer.js';
import { OperationSchedulers } from './operation-schedulers.js';
import {
  EARLIEST_OFFSET,
  HANGING_TRANSACTION_MARGIN_MS,
  Partitions,
  stableCommittedOffsets,
  type HeldPartition,
} from './partitions.js';
import { PauseControl, type PauseReason } from './pause-control.js';
import type { ProcessDeps } from '../requests/process-request.js';
import { SpendCapPauses } from './spend-cap-pauses.js';
import { TakeWindow } from './take-window.js';
import { Worker } from './worker.js';

export { isProgrammingError } from './worker.js';

/** The settings of `Runtime`. */
export interface RuntimeSettings {
  groupId: string;
  maxInFlight: number;
  partitionWindow: number;
  /** Uncommitted requests of every held partition together (see TakeWindow). */
  replicaWindow: number;
  /** LANE_BULK_QUEUE: uncommitted bulk-lane requests per operation (see TakeWindow). */
  bulkWindow?: Readonly<Record<Operation, number>>;
  commitIntervalMs: number;
  /** The longest spacing between commit rounds (CommitLoop: a tenth of the waiting work's time). */
  maxCommitIntervalMs: number;
  shutdownTimeoutMs: number;
  sessionTimeoutMs: number;
  transactionalId: string;
  transactionTimeoutMs: number;
}

export interface RuntimeMetrics {
  outcome(operation: Operation, kind: 'result' | 'error', status: string): void;
  committed(count: number): void;
  /** A round's offsets refused by the group: this member's generation was over. */
  commitRefused?(): void;
  /** Seconds from a request's Kafka timestamp to the commit of its outcome. */
  endToEnd?(operation: Operation, seconds: number): void;
  rebalance?(): void;
}

/** What the runtime holds now, read by the metrics at scrape time. */
export interface RuntimeStats {
  inFlight: number;
  partitions: { topic: string; partition: number; windowUsed: number }[];
  paused: { topic: string; partition: number; reason: PauseReason }[];
  /** Partitions waiting for an open transaction past the transaction timeout (partitions.ts). */
  hanging: HeldPartition[];
}

/** A paused request partition, for the console. */
export interface PausedPartition {
  topic: string;
  partition: number;
  reasons: string[];
  /** How long an open transaction has held it past the transaction timeout's margin, if it has. */
  hangingForMs?: number;
}

/**
 * The client's consumer. Whole, not a part: the transactional producer hands it to the client
 * with the round's offsets, which reads the group's metadata from it.
 */
export type RuntimeConsumer = Consumer;

/** A change of the partitions assigned to this member (the consumer's rebalance callback). */
export interface Rebalance {
  kind: 'assign' | 'revoke';
  partitions: { topic: string; partition: number }[];
  /** A revocation because the session was lost: another member may hold them already. */
  lost: boolean;
}

export interface RuntimeDeps {
  kafka: Kafka;
  admin: OffsetsAdmin;
  topics: TopicNames;
  settings: RuntimeSettings;
  process: ProcessDeps;
  output: OutputDeps;
  breakerFor(operation: Operation): CircuitBreaker;
  logger: Logger;
  metrics?: RuntimeMetrics;
  /** A span per request from consume to commit (observability/tracing.ts); none when absent. */
  tracing?: Pick<Tracing, 'startRequest'> | undefined;
  /**
   * The group's consumer, which calls `onRebalance` as partitions are assigned and revoked and
   * waits for it; kafka.consumer(...) with the settings' group and timeouts when absent.
   */
  createConsumer?: (
    settings: RuntimeSettings,
    onRebalance: (rebalance: Rebalance) => Promise<void>,
  ) => RuntimeConsumer;
  /** The process's transactional producer; createTransactionalProducer(kafka, settings) when absent. */
  producer?: TransactionalProducer;
  /** Called once when the runtime cannot go on (the process should exit and be restarted). */
  onFatal(error: unknown): void;
}

/**
 * The consumer runtime: one group reads every request topic; work runs concurrently beyond
 * the partition count in key order (KeyScheduler); per partition, the contiguous completed
 * prefix is committed together with its outputs, for every partition at once, in one
 * transaction of the process's one transactional producer (exactly once for read_committed
 * readers; zombies fenced by the group generation, KIP-447); a partition whose window of
 * uncommitted work is full is paused.
 * Runtime coordinates the parts: Partitions (life cycle), Worker (batches to outcomes) and
 * CommitLoop (prefixes to transactions).
 */
export class Runtime {
  private readonly consumer: RuntimeConsumer;
  private readonly scheduler: OperationSchedulers;
  private readonly pauses: PauseControl;
  private readonly breakerPauses: BreakerPauses;
  private readonly spendCaps: SpendCapPauses;
  private readonly partitions: Partitions;
  private readonly window: TakeWindow;
  private readonly worker: Worker;
  private readonly commits: CommitLoop;
  private readonly producer: TransactionalProducer;
  /** The partitions assigned to this member now (incremental: cooperative rebalancing). */
  private readonly assignment = new Map<string, Set<number>>();
  /** Set at the first assignment: from then on rounds commit through this consumer's group. */
  private inGroup = false;
  private stopping = false;

  constructor(private readonly deps: RuntimeDeps) {
    const { settings, logger } = deps;
    const onRebalance = (rebalance: Rebalance): Promise<void> => this.rebalanced(rebalance);
    this.consumer =
      deps.createConsumer?.(settings, onRebalance) ?? defaultConsumer(deps.kafka, settings, onRebalance);
    this.scheduler = new OperationSchedulers(settings.maxInFlight, (error) => {
      this.fail(error);
    });
    this.pauses = new PauseControl(this.consumer);
    this.breakerPauses = new BreakerPauses({
      pauses: this.pauses,
      breakerFor: (operation) => deps.breakerFor(operation),
      topicsOf: (operation) => LANES.map((lane) => deps.topics.request(operation, lane)),
      partitionsOf: (topic) => this.partitions.partitionsOf(topic),
      logger,
    });
    this.spendCaps = new SpendCapPauses({
      pauses: this.pauses,
      topicsOf: (operation) => LANES.map((lane) => deps.topics.request(operation, lane)),
      partitionsOf: (topic) => this.partitions.partitionsOf(topic),
    });
    this.producer = deps.producer ?? createTransactionalProducer(deps.kafka, settings);
    this.partitions = new Partitions({
      admin: deps.admin,
      settings,
      pauses: this.pauses,
      opened: (operation, topic, partition) => {
        this.breakerPauses.opened(operation, topic, partition);
        this.spendCaps.opened(operation, topic, partition);
      },
      scheduler: this.scheduler,
      logger,
      hangingAfterMs: settings.transactionTimeoutMs + HANGING_TRANSACTION_MARGIN_MS,
    });
    this.window = this.createWindow();
    this.worker = this.createWorker();
    this.commits = new CommitLoop({
      settings,
      window: this.window,
      partitions: () => this.partitions.values(),
      producer: this.producer,
      consumer: () => (this.inGroup ? this.consumer : undefined),
      committedOffsets: (partitions) => stableCommittedOffsets(deps.admin, settings.groupId, partitions),
      pauses: this.pauses,
      logger,
      metrics: deps.metrics,
      onRefused: (states) => {
        for (const state of states) {
          this.partitions.revoke(state);
          // The partition may still be ours (the group moved to a generation that kept it here):
          // the consumer must read again from the committed offset, or the messages it handed
          // over and we never committed wait for the next rebalance. What the state knows to be
          // committed is never past the group's offset (which another member may have moved on
          // since): seeking there at once, with no read, skips nothing. The client keeps a seek
          // on a partition no longer assigned until it is assigned again.
          const offset = state.committedOffset === '-1' ? EARLIEST_OFFSET : state.committedOffset;
          this.seek(state.topic, state.partition, offset);
        }
      },
      onFatal: (error) => {
        this.fail(error);
      },
    });
  }

  /** The client's seek; a consumer no longer connected (stopping) has nothing to seek. */
  private seek(topic: string, partition: number, offset: string): void {
    try {
      this.consumer.seek({ topic, partition, offset });
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code !== KafkaJS.ErrorCodes.ERR__STATE) throw error;
    }
  }

  /** The partitions' windows; a bulk lane's partitions also share their lane's (TakeWindow). */
  private createWindow(): TakeWindow {
    const { settings, topics } = this.deps;
    return new TakeWindow(
      settings,
      () => this.partitions.values(),
      (state) => topics.laneOfRequestTopic(state.topic)?.lane === 'bulk',
    );
  }

  private createWorker(): Worker {
    const { deps } = this;
    return new Worker({
      topics: deps.topics,
      window: this.window,
      partitions: this.partitions,
      scheduler: this.scheduler,
      pauses: this.pauses,
      breakerPauses: this.breakerPauses,
      process: deps.process,
      output: deps.output,
      logger: deps.logger,
      metrics: deps.metrics,
      tracing: deps.tracing,
      onCompleted: (state, workMs) => {
        this.commits.completed(state, workMs);
      },
      isStopping: () => this.stopping,
    });
  }

  async start(): Promise<void> {
    const { consumer, deps } = this;
    // InitProducerId first: what a previous incarnation with our transactional id left open is
    // aborted before anyone reads the offsets it held.
    await this.producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topics: deps.topics.requestTopics() });
    await consumer.run({
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: (payload) => this.worker.takeBatch(payload),
    });
    this.commits.start();
  }

  /** Stops fetching, lets in-flight work finish within the deadline, commits, and closes. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.partitions.stop();
    this.commits.stop();
    this.breakerPauses.stop();
    this.spendCaps.stop();
    for (const state of this.partitions.values()) this.pauses.pause(state.topic, state.partition, 'shutdown');
    const deadline = new Promise<'timeout'>((resolve) =>
      setTimeout(resolve, this.deps.settings.shutdownTimeoutMs, 'timeout').unref(),
    );
    if ((await Promise.race([this.scheduler.idle(), deadline])) === 'timeout') {
      this.deps.logger.warn(
        { inFlight: this.scheduler.inFlight },
        'shutdown deadline reached; abandoning in-flight work',
      );
      this.partitions.abortAll();
      this.scheduler.dropQueued(() => true);
    }
    await this.commits.commitFinal();
    // Outcomes still being stored for later copies (bounded by the same deadline, which also
    // ends the retries of the writes still failing then).
    const stopRetries = new AbortController();
    void deadline.then(() => {
      stopRetries.abort(new Error('shutdown deadline reached'));
    });
    await Promise.race([this.deps.process.idempotency.settle(stopRetries.signal), deadline]);
    await this.consumer.disconnect();
    await this.producer.close().catch(() => undefined);
  }

  /**
   * The consumer's rebalance callback; the rebalance goes on once it resolves. Cooperative
   * rebalancing: an assignment adds partitions, a revocation takes some away, and a partition
   * that stays assigned stays ours throughout, its work kept.
   *
   * A revoked partition's work is dropped here, before the partition is let go, and a commit
   * round under way is waited for: the client reads the group generation when it sends a
   * round's offsets, so a round sent after the group has moved on would commit a partition that
   * may be someone else's by then. A round that does not end in time is fenced (its producer
   * replaced, a new epoch).
   */
  private async rebalanced({ kind, partitions, lost }: Rebalance): Promise<void> {
    if (kind === 'assign') {
      for (const { topic, partition } of partitions) {
        let set = this.assignment.get(topic);
        if (!set) {
          set = new Set();
          this.assignment.set(topic, set);
        }
        set.add(partition);
      }
      this.inGroup = true;
      this.deps.metrics?.rebalance?.();
      this.partitions.assigned(this.assignmentRecord());
      for (const { topic, partition } of partitions) {
        if (!this.deps.topics.laneOfRequestTopic(topic)) continue;
        this.partitions.assignedOne(topic, partition).catch((error: unknown) => {
          this.deps.logger.warn(
            { err: error, topic, partition },
            'could not read the committed offset of a partition',
          );
        });
      }
      return;
    }
    for (const { topic, partition } of partitions) this.assignment.get(topic)?.delete(partition);
    if (lost) {
      this.deps.logger.warn(
        { partitions: partitions.length },
        'partitions lost (session expired); their work is dropped and read again from what is committed',
      );
    }
    this.partitions.assigned(this.assignmentRecord());
    if (!(await this.commits.settle(REVOKE_SETTLE_MS))) {
      this.deps.logger.warn('a commit round outlived a revocation; its producer is fenced');
      await this.producer.fence().catch(() => undefined);
    }
  }

  private assignmentRecord(): Record<string, number[]> {
    return Object.fromEntries([...this.assignment].map(([topic, set]) => [topic, [...set]]));
  }

  stats(): RuntimeStats {
    const window = this.deps.settings.partitionWindow;
    return {
      inFlight: this.scheduler.inFlight,
      partitions: [...this.partitions.values()].map((state) => ({
        topic: state.topic,
        partition: state.partition,
        windowUsed: state.tracker.size / window,
      })),
      paused: this.pauses.paused(),
      hanging: this.partitions.heldByHangingTransactions(),
    };
  }

  /**
   * The paused partitions and their reasons, for the console's status page, with how long a
   * hanging transaction (partitions.ts) has held those it holds.
   */
  pausedPartitions(): PausedPartition[] {
    const byPartition = new Map<string, PausedPartition>();
    for (const { topic, partition, reason } of this.pauses.paused()) {
      const id = `${topic}\u0000${partition}`;
      const entry = byPartition.get(id) ?? { topic, partition, reasons: [] };
      entry.reasons.push(reason);
      byPartition.set(id, entry);
    }
    for (const { topic, partition, heldMs } of this.partitions.heldByHangingTransactions()) {
      const entry = byPartition.get(`${topic}\u0000${partition}`);
      if (entry) entry.hangingForMs = heldMs;
    }
    return [...byPartition.values()];
  }

  /** Pauses an operation's partitions until `resumeAt` (spend cap reached). */
  pauseOperationUntil(operation: Operation, resumeAt: number): void {
    this.spendCaps.pauseUntil(operation, resumeAt);
  }

  private fail(error: unknown): void {
    if (this.stopping) return;
    this.deps.logger.fatal({ err: error }, 'runtime cannot go on');
    this.deps.onFatal(error);
  }
}

/**
 * An idle consumer sends one fetch per broker every `fetch.wait.max.ms`; at 250 ms that was the
 * largest cost of a service without traffic. New messages still return a long poll at once;
 * the wait bounds only how soon a partition resumed while every other one is idle or paused
 * is fetched again, which a window of buffered work or a breaker's cooldown far outlasts.
 * A partition whose window is full is paused and its unresolved rest fetched again once
 * resumed: a smaller fetch per partition (librdkafka: 1 MiB) bounds what each resume decodes
 * only to drop. A record batch larger than it is still returned whole (KIP-74).
 *
 * A whole fetch is bounded too, to what six busy partitions return (librdkafka: 50 MiB): at 256
 * partitions a 50k backlog came in one response, decoded at once to take a fair share of about
 * 20 each, which set the peak RSS (bench (d)). Partitions past the bound wait for the next
 * fetch; those that took their share are paused by then. (Set as librdkafka's own properties:
 * the KafkaJS-compatible `maxBytes` sets librdkafka's per-partition limit instead.)
 */
export const FETCH_SETTINGS = {
  'fetch.wait.max.ms': 1_000,
  'max.partition.fetch.bytes': 256 * 1024,
  'fetch.max.bytes': 6 * 256 * 1024,
} as const;

/** How long a revocation waits for the commit round under way before fencing it. */
export const REVOKE_SETTLE_MS = 10_000;

/**
 * librdkafka's settings of the group's consumer. It keeps a queue of fetched messages per
 * partition ahead of the application (`queued.max.messages.kbytes`, 64 MiB by default): bounded
 * here to what a window of work needs, since a paused partition's queue is dropped and fetched
 * again on resume. Batches are not capped (`js.consumer.max.batch.size`, 32 by default): the
 * worker takes what the partition's window has room for.
 */
export const CONSUMER_SETTINGS = {
  'js.consumer.max.batch.size': -1,
  'queued.max.messages.kbytes': 4 * 1024,
} as const;

export function consumerConfig(
  settings: RuntimeSettings,
  onRebalance: (rebalance: Rebalance) => Promise<void>,
): ConsumerConstructorConfig {
  const { ErrorCodes } = KafkaJS;
  return {
    kafkaJS: {
      groupId: settings.groupId,
      fromBeginning: true,
      autoCommit: false,
      readUncommitted: false,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: Math.min(3_000, Math.floor(settings.sessionTimeoutMs / 3)),
      partitionAssigners: [KafkaJS.PartitionAssigners.cooperativeSticky],
    },
    ...CONSUMER_SETTINGS,
    ...FETCH_SETTINGS,
    rebalance_cb: async (
      error: { code: number },
      assignment: { topic: string; partition: number }[],
      fns: { assignmentLost(): boolean },
    ): Promise<void> => {
      const kind = error.code === ErrorCodes.ERR__ASSIGN_PARTITIONS ? 'assign' : 'revoke';
      const partitions = assignment.map(({ topic, partition }) => ({ topic, partition }));
      await onRebalance({ kind, partitions, lost: kind === 'revoke' && fns.assignmentLost() });
    },
  };
}

function defaultConsumer(
  kafka: Kafka,
  settings: RuntimeSettings,
  onRebalance: (rebalance: Rebalance) => Promise<void>,
): Consumer {
  return kafka.consumer(consumerConfig(settings, onRebalance));
}
