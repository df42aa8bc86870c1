import type { Batch, Consumer, Kafka, KafkaMessage } from 'kafkajs';
import { RangeCursors } from './cursors.js';
import type { RawRecord } from './records.js';
import { committedOffsets, deleteGroup, throwawayGroupId, type GroupAdmin } from './throwaway-group.js';
import type { PartitionRange } from './window.js';

/** What `readRanges` depends on. */
export interface ReaderDeps {
  kafka: Pick<Kafka, 'consumer'>;
  admin: GroupAdmin;
  clientId: string;
  /** The service's group (KAFKA_GROUP_ID): the reader's group id is checked against it. */
  serviceGroupId: string;
  warn: (message: string) => void;
}

export interface ReadOptions {
  ranges: readonly PartitionRange[];
  /** Awaited before the next message is read (back-pressure from the output). */
  onRecord(record: RawRecord): Promise<void>;
  /** Offsets passed so far (the progress bar's value). */
  onProgress?: (read: number) => void;
  signal?: AbortSignal | undefined;
  /** Stop waiting on partitions that made no progress for this long (records deleted under us). */
  idleTimeoutMs?: number;
  /** Leave the throwaway group in place (tests inspect it); it is deleted by default. */
  keepGroup?: boolean;
}

export interface ReadSummary {
  /** Null when every range was empty and no consumer was needed. */
  groupId: string | null;
  delivered: number;
  /** Offsets found committed for the throwaway group before deleting it: always expected 0. */
  committedOffsets: number;
  /** Partitions given up on after the idle timeout, or left when aborted. */
  unfinished: { topic: string; partition: number; offset: number }[];
  aborted: boolean;
}

/** Restarts after retriable consumer crashes before a read gives up. */
const MAX_RESTARTS = 3;

interface ReadState {
  delivered: number;
  stopped: boolean;
  aborted: boolean;
  /** A retriable crash disconnected the consumer; kafkajs joins again shortly. */
  restarting: boolean;
}

/**
 * Bounded reading: every message of the given ranges, each once, then stop. The ranges' ends
 * were fixed before reading (window.ts), so a replay ends even while the topic keeps growing;
 * empty ranges end at once. Reads read_committed: aborted transactions are never shown.
 * How it avoids the service's consumer group and commits: see throwaway-group.ts.
 */
export async function readRanges(deps: ReaderDeps, options: ReadOptions): Promise<ReadSummary> {
  const cursors = new RangeCursors(options.ranges);
  if (cursors.allDone) {
    return { groupId: null, delivered: 0, committedOffsets: 0, unfinished: [], aborted: false };
  }
  const groupId = throwawayGroupId(deps.clientId, deps.serviceGroupId);
  let restarts = 0;
  const topics = [...new Set(options.ranges.map((r) => r.topic))];
  const consumer = deps.kafka.consumer({
    groupId,
    allowAutoTopicCreation: false,
    readUncommitted: false,
    maxWaitTimeInMs: 250,
    // A retriable crash (a join that times out on a loaded broker, a coordinator moving) restarts
    // the consumer a few times: each new join places the cursors again, so nothing is read twice
    // or skipped. Past that the read fails with the crash's error.
    retry: { retries: 2, restartOnFailure: () => Promise.resolve((restarts += 1) <= MAX_RESTARTS) },
  });
  const state: ReadState = { delivered: 0, stopped: false, aborted: false, restarting: false };
  let committed = 0;
  try {
    await consumer.connect();
    // The group has no offsets, so kafkajs starts each partition from the earliest offset until
    // the seek to the range start takes effect (it can only seek once running). Earliest, not
    // latest: an early fetch then lands at or before the start, where the cursors drop what it
    // returns, and never past messages still to read; it also recovers from retention deleting
    // the start mid-read (OFFSET_OUT_OF_RANGE resets to the earliest).
    await consumer.subscribe({ topics, fromBeginning: true });
    await consume(consumer, cursors, options, state);
  } finally {
    await consumer.disconnect().catch((error: unknown) => {
      deps.warn(`could not leave the throwaway consumer group ${groupId}: ${messageOf(error)}`);
    });
    committed = await cleanUpGroup(deps, groupId, topics, options.keepGroup === true);
  }
  const unfinished = cursors
    .positions()
    .filter((p) => !p.done)
    .map(({ topic, partition, offset }) => ({ topic, partition, offset }));
  return {
    groupId,
    delivered: state.delivered,
    committedOffsets: committed,
    unfinished,
    aborted: state.aborted,
  };
}

/** One read in progress: where each partition stands and how it ends. */
interface Session {
  consumer: Consumer;
  cursors: RangeCursors;
  options: ReadOptions;
  state: ReadState;
  finish: (error?: unknown) => void;
  /** Notes progress (the idle timeout counts from the last one). */
  touch: () => void;
}

/**
 * Resolves when every range is read, on abort or after the idle timeout; rejects when the
 * consumer crashes or `onRecord` fails (the error is kept, never handed back to kafkajs, which
 * would process the batch again and print lines twice).
 */
function consume(
  consumer: Consumer,
  cursors: RangeCursors,
  options: ReadOptions,
  state: ReadState,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let lastProgressAt = Date.now();
    const idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
    const idle = setInterval(
      () => {
        if (Date.now() - lastProgressAt > idleTimeoutMs) session.finish();
      },
      Math.min(1_000, idleTimeoutMs),
    );
    const onAbort = (): void => {
      state.aborted = true;
      session.finish();
    };
    const session: Session = {
      consumer,
      cursors,
      options,
      state,
      finish: (error) => {
        if (state.stopped) return;
        state.stopped = true;
        clearInterval(idle);
        options.signal?.removeEventListener('abort', onAbort);
        if (error === undefined) resolve();
        else reject(error instanceof Error ? error : new Error(messageOf(error)));
      },
      touch: () => (lastProgressAt = Date.now()),
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    start(session);
  });
}

function start(session: Session): void {
  const { consumer } = session;
  // Placing on every join: after a rebalance kafkajs would restart from the committed
  // offsets, and there are none by design.
  consumer.on(consumer.events.GROUP_JOIN, () => {
    session.state.restarting = false;
    place(session);
  });
  consumer.on(consumer.events.CRASH, ({ payload }) => {
    if (payload.restart) session.state.restarting = true;
    else session.finish(payload.error);
  });
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    const first = (payload.firstOffset as string | null) === null ? null : Number(payload.firstOffset);
    batchEnded(session, payload.topic, payload.partition, first, Number(payload.lastOffset));
  });
  consumer.run({ autoCommit: false, eachBatch: ({ batch }) => deliver(session, batch) }).then(() => {
    place(session);
  }, session.finish);
}

/**
 * Seeks each unfinished partition to its cursor; pauses the finished and empty ones.
 * `run()` also resolves after a crash in the first join, with the consumer disconnected and
 * kafkajs's seek throwing: a finished session places nothing, and a restarting one waits for
 * its next join.
 */
function place(session: Session): void {
  const { consumer, cursors, state, touch } = session;
  if (state.stopped) return;
  try {
    for (const p of cursors.positions()) {
      if (p.done) consumer.pause([{ topic: p.topic, partitions: [p.partition] }]);
      else consumer.seek({ topic: p.topic, partition: p.partition, offset: String(p.offset) });
    }
  } catch (error) {
    if (!state.restarting) session.finish(error);
    return;
  }
  touch();
}

async function deliver(session: Session, batch: Batch): Promise<void> {
  const { cursors, options, state } = session;
  for (const message of batch.messages) {
    if (state.stopped) return;
    if (!cursors.accept(batch.topic, batch.partition, Number(message.offset))) continue;
    try {
      await options.onRecord(toRawRecord(batch.topic, batch.partition, message));
      state.delivered += 1;
      // Progress too: a slow reader of the output (a pager, a redrive's sends) is no stall.
      session.touch();
    } catch (error) {
      session.finish(error);
      return;
    }
  }
}

/**
 * Runs after every batch, including those kafkajs never hands to eachBatch (only transaction
 * markers or aborted messages): their last offset still moves the cursor.
 */
function batchEnded(
  session: Session,
  topic: string,
  partition: number,
  firstOffset: number | null,
  lastOffset: number,
): void {
  const { consumer, cursors, options } = session;
  if (session.state.stopped) return;
  cursors.batchEnded(topic, partition, firstOffset, lastOffset);
  session.touch();
  options.onProgress?.(cursors.progress);
  if (cursors.isDone(topic, partition)) consumer.pause([{ topic, partitions: [partition] }]);
  if (cursors.allDone) session.finish();
}

async function cleanUpGroup(
  deps: ReaderDeps,
  groupId: string,
  topics: readonly string[],
  keep: boolean,
): Promise<number> {
  let found = 0;
  try {
    found = (await committedOffsets(deps.admin, groupId, topics)).length;
    if (found > 0) deps.warn(`the throwaway consumer group ${groupId} holds ${found} committed offsets`);
    if (!keep) await deleteGroup(deps.admin, groupId);
  } catch (error) {
    deps.warn(`could not delete the throwaway consumer group ${groupId}: ${messageOf(error)}`);
  }
  return found;
}

function toRawRecord(topic: string, partition: number, message: KafkaMessage): RawRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    timestamp: Number(message.timestamp),
    key: message.key,
    value: message.value,
    headers: message.headers ?? {},
  };
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}
