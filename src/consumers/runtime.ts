import type { Admin, Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import type { Logger } from 'pino';
import { OPERATIONS, type Operation, type TopicNames } from '../contract/operations.js';
import { lazyChild } from '../observability/logger.js';
import type { RequestTrace, Tracing } from '../observability/tracing.js';
import { readTraceparent } from '../producers/headers.js';
import { recordsForResult, type OutputDeps, type OutputRecord } from '../producers/output-records.js';
import { recordForDeadLetter } from '../producers/dead-letter-record.js';
import { createPartitionProducer, type PartitionProducer } from '../producers/partition-producer.js';
import { BreakerPauses } from './breaker-pauses.js';
import type { CircuitBreaker } from './circuit-breaker.js';
import { KeyScheduler } from './key-scheduler.js';
import { PartitionState } from './partition-state.js';
import { PauseControl, type PauseReason } from './pause-control.js';
import { processRequest, type ProcessDeps } from './process-request.js';

/**
 * The consumer runtime: one group reads every request topic; work runs concurrently beyond
 * the partition count in key order (KeyScheduler); per partition, the contiguous completed
 * prefix is committed together with its outputs in one transaction (exactly once for
 * read_committed readers); a partition whose window of uncommitted work is full is paused.
 */
export interface RuntimeSettings {
  groupId: string;
  maxInFlight: number;
  partitionWindow: number;
  commitIntervalMs: number;
  shutdownTimeoutMs: number;
  sessionTimeoutMs: number;
}

export interface RuntimeMetrics {
  outcome(operation: Operation, kind: 'result' | 'error', status: string): void;
  committed(count: number): void;
  /** Seconds from a request's Kafka timestamp to the commit of its outcome. */
  endToEnd?(operation: Operation, seconds: number): void;
  rebalance?(): void;
}

/** What the runtime holds now, read by the metrics at scrape time. */
export interface RuntimeStats {
  inFlight: number;
  partitions: { topic: string; partition: number; windowUsed: number }[];
  paused: { topic: string; partition: number; reason: PauseReason }[];
}

export interface RuntimeDeps {
  kafka: Kafka;
  admin: Admin;
  topics: TopicNames;
  settings: RuntimeSettings;
  process: ProcessDeps;
  output: OutputDeps;
  breakerFor(operation: Operation): CircuitBreaker;
  logger: Logger;
  metrics?: RuntimeMetrics;
  /** A span per request from consume to commit (observability/tracing.ts); none when absent. */
  tracing?: Pick<Tracing, 'startRequest'> | undefined;
  createProducer?: (transactionalId: string) => PartitionProducer;
  /** Called once when the runtime cannot go on (the process should exit and be restarted). */
  onFatal(error: unknown): void;
}

const MAX_COMMIT_FAILURES = 5;
/** kafkajs's seek offset for "the earliest": the partition has no committed offset yet. */
const EARLIEST_OFFSET = '-2';

export class Runtime {
  private readonly consumer: Consumer;
  private readonly scheduler: KeyScheduler;
  private readonly pauses: PauseControl;
  private readonly breakerPauses: BreakerPauses;
  private readonly states = new Map<string, PartitionState>();
  private readonly pendingStates = new Map<string, Promise<PartitionState>>();
  private commitTimer: NodeJS.Timeout | undefined;
  private stopping = false;

  constructor(private readonly deps: RuntimeDeps) {
    this.consumer = deps.kafka.consumer({
      groupId: deps.settings.groupId,
      readUncommitted: false,
      maxWaitTimeInMs: 250,
      sessionTimeout: deps.settings.sessionTimeoutMs,
      heartbeatInterval: Math.min(3_000, Math.floor(deps.settings.sessionTimeoutMs / 3)),
    });
    this.scheduler = new KeyScheduler(deps.settings.maxInFlight, (error) => {
      this.fail(error);
    });
    this.pauses = new PauseControl(this.consumer);
    this.breakerPauses = new BreakerPauses({
      pauses: this.pauses,
      breakerFor: (operation) => deps.breakerFor(operation),
      topicOf: (operation) => deps.topics.request(operation),
      partitionsOf: (topic) =>
        [...this.states.values()].filter((s) => s.topic === topic).map((s) => s.partition),
      logger: deps.logger,
    });
  }

  async start(): Promise<void> {
    const { consumer, deps } = this;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      this.deps.metrics?.rebalance?.();
      this.onAssignment(payload.memberAssignment);
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart) this.fail(payload.error);
    });
    await consumer.connect();
    await consumer.subscribe({
      topics: OPERATIONS.map((op) => deps.topics.request(op)),
      fromBeginning: true,
    });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 4,
      eachBatch: (payload) => this.takeBatch(payload),
    });
    this.scheduleCommit();
  }

  /** Stops fetching, lets in-flight work finish within the deadline, commits, and closes. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.breakerPauses.stop();
    for (const state of this.states.values()) this.pauses.pause(state.topic, state.partition, 'shutdown');
    const deadline = new Promise<'timeout'>((resolve) =>
      setTimeout(resolve, this.deps.settings.shutdownTimeoutMs, 'timeout').unref(),
    );
    if ((await Promise.race([this.scheduler.idle(), deadline])) === 'timeout') {
      this.deps.logger.warn(
        { inFlight: this.scheduler.inFlight },
        'shutdown deadline reached; abandoning in-flight work',
      );
      for (const state of this.states.values()) {
        state.abort.abort(new Error('shutdown'));
        state.callAbort.abort(new Error('shutdown'));
      }
      this.scheduler.dropQueued(() => true);
    }
    clearTimeout(this.commitTimer);
    await this.commitAll();
    await this.consumer.disconnect();
    await Promise.all(
      [...this.states.values()].map((state) => state.producer.close().catch(() => undefined)),
    );
    this.states.clear();
  }

  private async takeBatch(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const { topic, partition } = batch;
    const operation = this.deps.topics.operationOfRequestTopic(topic);
    if (!operation || this.isStopping()) return;
    const state = await this.stateFor(topic, partition, operation);
    for (const message of batch.messages) {
      if (!payload.isRunning() || payload.isStale() || state.isRevoked() || this.isStopping()) return;
      const offset = BigInt(message.offset);
      if (offset <= state.highestTaken) {
        payload.resolveOffset(message.offset);
        continue;
      }
      if (state.tracker.size >= this.deps.settings.partitionWindow) {
        // Not resolved: kafkajs fetches the rest again after resume.
        this.pauses.pause(topic, partition, 'window');
        return;
      }
      // Held by an open breaker (unresolved: fetched again after resume), or its one probe message.
      if (!this.breakerPauses.admit(topic, partition)) return;
      state.tracker.take(message.offset);
      state.highestTaken = offset;
      payload.resolveOffset(message.offset);
      const orderingKey = message.key ? `${state.id}\u0000${message.key.toString('latin1')}` : undefined;
      this.scheduler.submit(orderingKey, state.id, () => this.work(state, message));
    }
  }

  private stateFor(topic: string, partition: number, operation: Operation): Promise<PartitionState> {
    const id = `${topic}/${partition}`;
    const existing = this.states.get(id);
    if (existing && !existing.isRevoked()) return Promise.resolve(existing);
    let pending = this.pendingStates.get(id);
    if (!pending) {
      pending = this.openPartition(topic, partition, operation).finally(() => this.pendingStates.delete(id));
      this.pendingStates.set(id, pending);
    }
    return pending;
  }

  private async openPartition(
    topic: string,
    partition: number,
    operation: Operation,
  ): Promise<PartitionState> {
    const { deps } = this;
    const transactionalId = `${deps.settings.groupId}.${topic}.${partition}`;
    const producer =
      deps.createProducer?.(transactionalId) ?? createPartitionProducer(deps.kafka, transactionalId);
    const state = new PartitionState(topic, partition, operation, producer);
    await producer.fence();
    // Read the committed offset only after fencing: an earlier owner may have committed
    // between our group join and the fence; nothing below this offset may be done again.
    const [committed] = await deps.admin.fetchOffsets({ groupId: deps.settings.groupId, topics: [topic] });
    const offset = committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
    state.highestTaken = BigInt(offset) - 1n;
    this.breakerPauses.opened(operation, topic, partition);
    this.states.set(state.id, state);
    deps.logger.info({ topic, partition, committed: offset }, 'partition opened');
    return state;
  }

  private async work(state: PartitionState, message: KafkaMessage): Promise<void> {
    const log = lazyChild(this.deps.logger, () => ({
      topic: state.topic,
      partition: state.partition,
      offset: message.offset,
    }));
    const upstream = readTraceparent(message.headers);
    const trace = this.deps.tracing?.startRequest({
      operation: state.operation,
      topic: state.topic,
      partition: state.partition,
      offset: message.offset,
      traceparent: upstream,
    });
    // The outcome carries the request span's context when there is one, else the upstream's.
    const correlation = { key: message.key, traceparent: trace?.traceparent ?? upstream };
    const incoming = {
      operation: state.operation,
      origin: { topic: state.topic, partition: state.partition, offset: message.offset },
      value: message.value,
      correlation,
    };
    for (let failures = 0; ; failures += 1) {
      if (state.isRevoked()) return;
      try {
        // A signal per message: calls add and remove abort listeners on it, and one list per
        // message stays short where one shared per-partition list grows with the work in flight.
        const signal = AbortSignal.any([state.abort.signal]);
        const callSignal = AbortSignal.any([state.callAbort.signal]);
        const process = (): ReturnType<typeof processRequest> =>
          processRequest(this.deps.process, incoming, { signal, callSignal }, log);
        const outcome = await (trace ? trace.run(process) : process());
        if (outcome.kind === 'aborted' || state.isRevoked()) {
          trace?.abandon(outcome.kind === 'aborted' ? 'aborted' : 'revoked');
          return;
        }
        const records: OutputRecord[] =
          outcome.kind === 'result'
            ? await recordsForResult(this.deps.output, outcome.result, correlation)
            : [await recordForDeadLetter(this.deps.output, outcome.error, correlation, message.value)];
        state.tracker.complete(message.offset, records);
        state.onCommitted(message.offset, this.commitWatcher(state.operation, message, trace));
        this.deps.metrics?.outcome(
          state.operation,
          outcome.kind,
          outcome.kind === 'result' ? outcome.result.status : outcome.error.error.kind,
        );
        if (outcome.kind === 'error')
          log.warn(
            { requestId: outcome.error.requestId, kind: outcome.error.error.kind },
            'request dead-lettered',
          );
        return;
      } catch (error) {
        // A bug in our own code fails the same way every time: crash once and be reported,
        // rather than retry it or dead-letter a message that did nothing wrong.
        if (isProgrammingError(error)) throw error;
        // Infrastructure failures (registry, Redis): the message stays where it is, so that
        // key order holds, and is tried again; past the limit the process gives up.
        if (failures >= MAX_COMMIT_FAILURES) throw error;
        log.error({ err: error, failures }, 'processing failed on infrastructure; retrying');
        await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** failures));
      }
    }
  }

  private scheduleCommit(): void {
    this.commitTimer = setTimeout(() => {
      void this.commitAll().finally(() => {
        if (!this.stopping) this.scheduleCommit();
      });
    }, this.deps.settings.commitIntervalMs);
  }

  private async commitAll(): Promise<void> {
    await Promise.all([...this.states.values()].map((state) => this.commitPartition(state)));
  }

  private commitPartition(state: PartitionState): Promise<void> {
    if (state.committing) return state.committing;
    if (state.isRevoked()) return Promise.resolve();
    const prefix = state.takePrefix();
    if (!prefix) return Promise.resolve();
    const { groupId } = this.deps.settings;
    const offset = { groupId, topic: state.topic, partition: state.partition, offset: prefix.nextOffset };
    const startedAt = Date.now();
    state.committing = state.producer
      .commit(prefix.outputs, offset)
      .then(() => {
        state.commitFailures = 0;
        state.committed(prefix.nextOffset, startedAt);
        this.deps.metrics?.committed(prefix.count);
        if (state.tracker.size < this.deps.settings.partitionWindow)
          this.pauses.resume(state.topic, state.partition, 'window');
      })
      .catch((error: unknown) => {
        if (isFenced(error)) {
          this.deps.logger.warn(
            { topic: state.topic, partition: state.partition },
            'producer fenced; partition moved to another instance',
          );
          // The window held by the dropped state's work is gone with it.
          this.pauses.resume(state.topic, state.partition, 'window');
          this.revoke(state);
          // The partition may still be ours (a replica that held it for a moment during a
          // rebalance fenced us): the consumer must read again from the committed offset, or the
          // messages it handed over and we never committed wait for the next rebalance. kafkajs
          // ignores a seek on a partition no longer assigned.
          void this.rewind(state.topic, state.partition);
          return;
        }
        state.carry = prefix;
        state.commitFailures += 1;
        this.deps.logger.error(
          { err: error, failures: state.commitFailures, topic: state.topic, partition: state.partition },
          'transaction failed',
        );
        if (state.commitFailures >= MAX_COMMIT_FAILURES) this.fail(error);
      })
      .finally(() => {
        state.committing = undefined;
      });
    return state.committing;
  }

  private async rewind(topic: string, partition: number): Promise<void> {
    try {
      const [committed] = await this.deps.admin.fetchOffsets({
        groupId: this.deps.settings.groupId,
        topics: [topic],
      });
      const offset = committed?.partitions.find((p) => p.partition === partition)?.offset ?? '-1';
      this.consumer.seek({ topic, partition, offset: offset === '-1' ? EARLIEST_OFFSET : offset });
    } catch (error) {
      this.deps.logger.error(
        { err: error, topic, partition },
        'could not read the partition again after a fence',
      );
    }
  }

  private onAssignment(assignment: Record<string, number[] | undefined>): void {
    for (const state of this.states.values()) {
      if (!assignment[state.topic]?.includes(state.partition)) this.revoke(state);
    }
  }

  private revoke(state: PartitionState): void {
    if (state.isRevoked()) return;
    state.markRevoked();
    // A vendor call under way is paid for whatever we do: let it finish and store its outcome
    // (nothing is published for a revoked partition), or the new owner pays again. Work that has
    // not reached the vendor stops now; calls still running at the deadline are abandoned.
    state.abort.abort(new Error('partition revoked'));
    setTimeout(() => {
      state.callAbort.abort(new Error('partition revoked'));
    }, this.deps.settings.shutdownTimeoutMs).unref();
    this.scheduler.dropQueued((scope) => scope === state.id);
    this.states.delete(state.id);
    this.pauses.forget(state.topic, state.partition);
    void (state.committing ?? Promise.resolve()).then(() => state.producer.close()).catch(() => undefined);
    this.deps.logger.info({ topic: state.topic, partition: state.partition }, 'partition revoked');
  }

  stats(): RuntimeStats {
    const window = this.deps.settings.partitionWindow;
    return {
      inFlight: this.scheduler.inFlight,
      partitions: [...this.states.values()].map((state) => ({
        topic: state.topic,
        partition: state.partition,
        windowUsed: state.tracker.size / window,
      })),
      paused: this.pauses.paused(),
    };
  }

  /** What to do once a completed message's outcome is committed (undefined: nothing). */
  private commitWatcher(
    operation: Operation,
    message: KafkaMessage,
    trace: RequestTrace | undefined,
  ): ((commitStartedAt: number) => void) | undefined {
    const endToEnd = this.deps.metrics?.endToEnd?.bind(this.deps.metrics);
    if (!endToEnd && !trace) return undefined;
    const timestamp = Number(message.timestamp);
    return (commitStartedAt) => {
      endToEnd?.(operation, Math.max(0, Date.now() - timestamp) / 1000);
      trace?.committed(commitStartedAt);
    };
  }

  /** The paused partitions and their reasons, for the console's status page. */
  pausedPartitions(): { topic: string; partition: number; reasons: string[] }[] {
    const byPartition = new Map<string, { topic: string; partition: number; reasons: string[] }>();
    for (const { topic, partition, reason } of this.pauses.paused()) {
      const id = `${topic}\u0000${partition}`;
      const entry = byPartition.get(id) ?? { topic, partition, reasons: [] };
      entry.reasons.push(reason);
      byPartition.set(id, entry);
    }
    return [...byPartition.values()];
  }

  /** Pauses an operation's partitions until `resumeAt` (spend cap reached). */
  pauseOperationUntil(operation: Operation, resumeAt: number): void {
    const topic = this.deps.topics.request(operation);
    for (const state of this.states.values())
      if (state.topic === topic) this.pauses.pause(topic, state.partition, 'spend-cap');
    setTimeout(
      () => {
        for (const state of this.states.values())
          if (state.topic === topic) this.pauses.resume(topic, state.partition, 'spend-cap');
      },
      Math.max(0, resumeAt - Date.now()),
    ).unref();
  }

  /** A method, not a field read: the flag changes across awaits, which narrowing cannot see. */
  private isStopping(): boolean {
    return this.stopping;
  }

  private fail(error: unknown): void {
    if (this.stopping) return;
    this.deps.logger.fatal({ err: error }, 'runtime cannot go on');
    this.deps.onFatal(error);
  }
}

/**
 * A RangeError or TypeError raised by JavaScript itself (a bug, or a stack overflow content can
 * no longer cause since values are bounded at the boundary). undici reports network failures
 * as `TypeError('fetch failed')` with a cause; those are infrastructure, not bugs.
 */
export function isProgrammingError(error: unknown): boolean {
  if (!(error instanceof RangeError) && !(error instanceof TypeError)) return false;
  return error.cause === undefined;
}

function isFenced(error: unknown): boolean {
  const type = (error as { type?: unknown } | null)?.type;
  return (
    type === 'INVALID_PRODUCER_EPOCH' ||
    type === 'PRODUCER_FENCED' ||
    type === 'TRANSACTIONAL_ID_AUTHORIZATION_FAILED'
  );
}
