import type { Batch, EachBatchPayload, KafkaMessage } from '../kafka/client.js';
import type { Logger } from 'pino';
import type { Correlation } from '../contract/envelopes.js';
import type { Lane, Operation, TopicNames } from '../contract/operations.js';
import { lazyChild, type RequestLogger } from '../observability/logger.js';
import type { RequestTrace, Tracing } from '../observability/tracing.js';
import { readTraceparent } from '../producers/headers.js';
import {
  recordForDeadLetter,
  recordsForResult,
  type OutputDeps,
  type OutputRecord,
} from '../producers/output-records.js';
import type { BreakerPauses } from './breaker-pauses.js';
import { ChildSignals } from './child-signals.js';
import type { OperationSchedulers } from './operation-schedulers.js';
import type { CommitWatcher, PartitionState } from './partition-state.js';
import type { Partitions } from './partitions.js';
import type { PauseControl } from './pause-control.js';
import type { TakeWindow } from './take-window.js';
import { retry } from '../retry.js';
import {
  processRequest,
  type IncomingRequest,
  type ProcessDeps,
  type ProcessOutcome,
} from '../requests/process-request.js';

/** What `Worker` depends on. */
export interface WorkerDeps {
  topics: Pick<TopicNames, 'laneOfRequestTopic'>;
  window: Pick<TakeWindow, 'room'>;
  partitions: Pick<Partitions, 'stateFor'>;
  scheduler: Pick<OperationSchedulers, 'submit'>;
  pauses: Pick<PauseControl, 'pause'>;
  breakerPauses: Pick<BreakerPauses, 'admit'>;
  process: ProcessDeps;
  output: OutputDeps;
  logger: Logger;
  metrics?:
    | {
        outcome(operation: Operation, kind: 'result' | 'error', status: string): void;
        endToEnd?(operation: Operation, seconds: number): void;
      }
    | undefined;
  tracing?: Pick<Tracing, 'startRequest'> | undefined;
  /**
   * A message's outcome is ready to commit, `workMs` after the service began on it (the commit
   * loop commits as soon as it may).
   */
  onCompleted?(state: PartitionState, workMs: number): void;
  /** A method, not a field read: the flag changes across awaits, which narrowing cannot see. */
  isStopping(): boolean;
}

/** What a batch brings from the client that the worker uses. */
export type BatchPayload = Pick<EachBatchPayload, 'isRunning' | 'isStale' | 'resolveOffset'> & {
  batch: Pick<Batch, 'topic' | 'partition' | 'messages'>;
};

/**
 * An infrastructure failure of one message (registry, Redis) is tried again after 500 ms,
 * doubling up to 8 s, with equal jitter, for up to two minutes; then the process gives up. An
 * outage of the schema registry or Redis shorter than that (a restart, a failover) is waited
 * out: six tries, as before, gave up after about 12 s.
 */
export const INFRASTRUCTURE_RETRY = {
  budgetMs: 120_000,
  firstDelayMs: 500,
  maxDelayMs: 8_000,
  jitter: 'equal',
} as const;

/** One message under way: what it carries and how its work is logged and traced. */
interface Job {
  state: PartitionState;
  message: KafkaMessage;
  incoming: IncomingRequest;
  correlation: Correlation;
  trace: RequestTrace | undefined;
  log: RequestLogger;
  /** When the service began on the message (Date.now()). */
  startedAt: number;
}

/**
 * Takes fetched messages into their partition's window and schedules them by key; runs each
 * through processRequest and completes its offset with the outcome's output records.
 */
export class Worker {
  private readonly signals = new ChildSignals();

  constructor(private readonly deps: WorkerDeps) {}

  async takeBatch(payload: BatchPayload): Promise<void> {
    const { batch } = payload;
    const { topic, partition } = batch;
    const { operation, lane } = this.deps.topics.laneOfRequestTopic(topic) ?? {};
    if (!operation || !lane || this.deps.isStopping()) return;
    const state = await this.deps.partitions.stateFor(topic, partition, operation);
    // An earlier owner's transaction still holds its offsets (paused, fetched again once it ends).
    if (!state) return;
    let room = this.deps.window.room(state);
    for (const message of batch.messages) {
      if (!payload.isRunning() || payload.isStale() || state.isRevoked() || this.deps.isStopping()) return;
      const offset = BigInt(message.offset);
      if (offset <= state.highestTaken) {
        payload.resolveOffset(message.offset);
        continue;
      }
      if (room <= 0) {
        // Not resolved: the client fetches the rest again after resume.
        this.deps.pauses.pause(topic, partition, 'window');
        return;
      }
      // Held by an open breaker (unresolved: fetched again after resume), or its one probe message.
      if (!this.deps.breakerPauses.admit(topic, partition)) return;
      state.tracker.take(message.offset);
      room -= 1;
      state.highestTaken = offset;
      payload.resolveOffset(message.offset);
      const orderingKey = message.key ? `${state.id}\u0000${message.key.toString('latin1')}` : undefined;
      this.deps.scheduler.submit(
        state.operation,
        orderingKey,
        state.id,
        () => this.work(state, message, lane),
        lane,
      );
    }
  }

  /**
   * Processes the message until it completes. Infrastructure failures (registry, Redis): the
   * message stays where it is, so that key order holds, and is tried again (INFRASTRUCTURE_RETRY);
   * past the limit the process gives up. A revoked partition's message stops at once, waiting or
   * not. A bug in our own code fails the same way every time: crash once and be reported,
   * rather than retry it or dead-letter a message that did nothing wrong.
   */
  async work(state: PartitionState, message: KafkaMessage, lane: Lane = 'interactive'): Promise<void> {
    const job = this.job(state, message, lane);
    const tryOnce = async (): Promise<void> => {
      if (state.isRevoked()) job.trace?.abandon('revoked');
      else await this.attempt(job);
    };
    try {
      await retry(tryOnce, {
        ...INFRASTRUCTURE_RETRY,
        signal: state.abort.signal,
        retryable: (error) => !isProgrammingError(error),
        onRetry: (error, failures) => {
          job.log.error({ err: error, failures }, 'processing failed on infrastructure; retrying');
        },
      });
    } catch (error) {
      // Revoked or shut down while failing: the wait ended at once and the message is let go.
      if (!state.abort.signal.aborted || isProgrammingError(error)) throw error;
      job.trace?.abandon(state.isRevoked() ? 'revoked' : 'aborted');
    }
  }

  private job(state: PartitionState, message: KafkaMessage, lane: Lane): Job {
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
      lane,
    };
    return { state, message, incoming, correlation, trace, log, startedAt: Date.now() };
  }

  /** Processes the message once and completes its offset, unless it was stopped. */
  private async attempt(job: Job): Promise<void> {
    const { state, message, trace, log } = job;
    const outcome = await this.process(job);
    if (outcome.kind === 'aborted' || state.isRevoked()) {
      trace?.abandon(outcome.kind === 'aborted' ? 'aborted' : 'revoked');
      return;
    }
    state.tracker.complete(message.offset, await this.records(job, outcome));
    const status = outcome.kind === 'result' ? outcome.result.status : outcome.error.error.kind;
    state.onCommitted(
      message.offset,
      this.commitWatcher(state.operation, message, trace, { kind: outcome.kind, status }),
    );
    this.deps.onCompleted?.(state, Date.now() - job.startedAt);
    if (outcome.kind === 'error')
      log.warn(
        { requestId: outcome.error.requestId, kind: outcome.error.error.kind },
        'request dead-lettered',
      );
  }

  /** processRequest with signals of the message's own, which follow its partition's. */
  private async process(job: Job): Promise<ProcessOutcome> {
    const { state, trace, log } = job;
    const signal = this.signals.childOf(state.abort.signal);
    const callSignal = this.signals.childOf(state.callAbort.signal);
    const signals = { signal: signal.signal, callSignal: callSignal.signal };
    const process = (): Promise<ProcessOutcome> =>
      processRequest(this.deps.process, job.incoming, signals, log);
    try {
      return await (trace ? trace.run(process) : process());
    } finally {
      signal.release();
      callSignal.release();
    }
  }

  private async records(
    job: Job,
    outcome: Exclude<ProcessOutcome, { kind: 'aborted' }>,
  ): Promise<OutputRecord[]> {
    const { correlation } = job;
    const raw = job.message.value;
    return outcome.kind === 'result'
      ? await recordsForResult(this.deps.output, outcome, correlation, raw)
      : [await recordForDeadLetter(this.deps.output, outcome.error, correlation, raw)];
  }

  /** What to do once a completed message's outcome is committed (undefined: nothing). */
  private commitWatcher(
    operation: Operation,
    message: KafkaMessage,
    trace: RequestTrace | undefined,
    outcome: { kind: 'result' | 'error'; status: string },
  ): CommitWatcher | undefined {
    const { metrics } = this.deps;
    if (!metrics && !trace) return undefined;
    const timestamp = Number(message.timestamp);
    return {
      committed: (commitStartedAt) => {
        // Counted once committed: an outcome whose commit a rebalance lost is made again by
        // the partition's next owner (the paid outcome reused), and counted there.
        metrics?.outcome(operation, outcome.kind, outcome.status);
        metrics?.endToEnd?.(operation, Math.max(0, Date.now() - timestamp) / 1000);
        trace?.committed(commitStartedAt);
      },
      revoked: () => trace?.abandon('revoked'),
    };
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
