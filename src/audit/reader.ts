import type { KafkaConsumer, Message } from '@confluentinc/kafka-javascript';
import { asError, isClientError, type IHeaders } from '../kafka/client.js';
import { RangeCursors } from './cursors.js';
import type { RawRecord } from './records.js';
import { committedOffsets, deleteGroup, throwawayGroupId, type GroupAdmin } from './throwaway-group.js';
import type { PartitionRange } from './window.js';

/**
 * The part of the client's lower-level consumer (createPartitionConsumer) the reader uses:
 * assigned partitions at given offsets, messages in batches, and an end-of-partition event.
 */
export type RangeConsumer = Pick<
  KafkaConsumer,
  'connect' | 'disconnect' | 'assign' | 'consume' | 'on' | 'removeAllListeners' | 'isConnected' | 'committed'
>;

/** What `readRanges` depends on. */
export interface ReaderDeps {
  /** A consumer under the given group id, which it never joins (createPartitionConsumer). */
  openConsumer(groupId: string): RangeConsumer;
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

/** Messages asked of the client at a time. */
const BATCH = 500;

/**
 * Bounded reading: every message of the given ranges, each once, then stop. The ranges' ends
 * were fixed before reading (window.ts), so a replay ends even while the topic keeps growing;
 * empty ranges end at once. Reads read_committed: aborted transactions are never shown.
 *
 * The consumer is assigned each unfinished partition at its range's start: no group is joined
 * and nothing is committed (see throwaway-group.ts). A partition is done once a message at or
 * past its range's end arrives, or once the client reports its end (`partition.eof`, at the
 * last stable offset): transaction markers and aborted records, never delivered, then count as
 * read, so a range ending in a marker still ends.
 */
export async function readRanges(deps: ReaderDeps, options: ReadOptions): Promise<ReadSummary> {
  const cursors = new RangeCursors(options.ranges);
  if (cursors.allDone) {
    return { groupId: null, delivered: 0, committedOffsets: 0, unfinished: [], aborted: false };
  }
  const groupId = throwawayGroupId(deps.clientId, deps.serviceGroupId);
  const consumer = deps.openConsumer(groupId);
  const state = { delivered: 0, aborted: false };
  let committed = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      consumer.connect({ timeout: 30_000 }, (error) => {
        if (isClientError(error)) reject(asError(error));
        else resolve();
      });
    });
    await consume(consumer, cursors, options, state);
  } finally {
    consumer.removeAllListeners('partition.eof');
    if (consumer.isConnected()) {
      committed = await committedCount(consumer, groupId, options.ranges, deps.warn);
      await new Promise<void>((resolve) => {
        consumer.disconnect(() => {
          resolve();
        });
      });
    }
    if (options.keepGroup !== true) await removeGroup(deps, groupId);
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

/**
 * Reads until every range is read, on abort or after the idle timeout; rejects when the
 * client fails or `onRecord` does.
 */
async function consume(
  consumer: RangeConsumer,
  cursors: RangeCursors,
  options: ReadOptions,
  state: { delivered: number; aborted: boolean },
): Promise<void> {
  const idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
  let lastProgressAt = Date.now();
  const touch = (): void => {
    lastProgressAt = Date.now();
    options.onProgress?.(cursors.progress);
  };
  // The client reports a batch's ends of partitions before it hands the batch over: they are
  // applied once the batch's messages, all below those ends, have been delivered.
  const ends: { topic: string; partition: number; offset: number }[] = [];
  consumer.on('partition.eof', ({ topic, partition, offset }) => {
    ends.push({ topic, partition, offset });
  });
  const applyEnds = (): void => {
    for (const { topic, partition, offset } of ends.splice(0)) {
      // Everything below `offset` was fetched: what was not delivered was markers or aborted.
      const before = cursors.progress;
      cursors.passedTo(topic, partition, offset);
      // An end that moves nothing is no progress (records deleted under us: the idle timeout).
      if (cursors.progress > before) touch();
    }
  };
  consumer.assign(
    cursors
      .positions()
      .filter((p) => !p.done)
      .map(({ topic, partition, offset }) => ({ topic, partition, offset })),
  );
  while (!cursors.allDone) {
    if (options.signal?.aborted) {
      state.aborted = true;
      return;
    }
    if (Date.now() - lastProgressAt > idleTimeoutMs) return;
    const messages = await new Promise<Message[]>((resolve, reject) => {
      consumer.consume(BATCH, (error, batch) => {
        if (isClientError(error)) reject(asError(error));
        else resolve(batch);
      });
    });
    for (const message of messages) {
      if (options.signal?.aborted) {
        state.aborted = true;
        return;
      }
      const { topic, partition, offset } = message;
      if (!cursors.accept(topic, partition, offset)) {
        // Past the range's end: the range is read.
        cursors.passedTo(topic, partition, offset);
        continue;
      }
      await options.onRecord(toRawRecord(message));
      state.delivered += 1;
      // Progress too: a slow reader of the output (a pager, a redrive's sends) is no stall.
      touch();
    }
    applyEnds();
  }
}

/** How long the throwaway consumer waits for its group's committed offsets. */
const COMMITTED_READ_MS = 10_000;

/** The offsets the throwaway group holds (expected 0); a read that fails is warned of, and 0. */
async function committedCount(
  consumer: RangeConsumer,
  groupId: string,
  ranges: readonly PartitionRange[],
  warn: (message: string) => void,
): Promise<number> {
  try {
    const found = (await committedOffsets(consumer, ranges, COMMITTED_READ_MS)).length;
    if (found > 0) warn(`the throwaway consumer group ${groupId} holds ${found} committed offsets`);
    return found;
  } catch (error) {
    warn(`could not read the throwaway consumer group ${groupId}'s offsets: ${messageOf(error)}`);
    return 0;
  }
}

async function removeGroup(deps: ReaderDeps, groupId: string): Promise<void> {
  try {
    await deleteGroup(deps.admin, groupId);
  } catch (error) {
    deps.warn(`could not delete the throwaway consumer group ${groupId}: ${messageOf(error)}`);
  }
}

function toRawRecord(message: Message): RawRecord {
  return {
    topic: message.topic,
    partition: message.partition,
    offset: String(message.offset),
    timestamp: message.timestamp ?? 0,
    key: message.key === undefined || message.key === null ? null : Buffer.from(message.key),
    value: message.value,
    headers: headersOf(message),
  };
}

/** The client's header list (one object per header) as the KafkaJS-style map records use. */
function headersOf(message: Message): IHeaders {
  const headers: IHeaders = {};
  for (const entry of message.headers ?? []) {
    for (const [name, value] of Object.entries(entry)) {
      const bytes = typeof value === 'string' ? Buffer.from(value) : value;
      const existing = headers[name];
      if (existing === undefined) headers[name] = bytes;
      else headers[name] = [...(Array.isArray(existing) ? existing : [existing]), bytes];
    }
  }
  return headers;
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : JSON.stringify(error);
}
