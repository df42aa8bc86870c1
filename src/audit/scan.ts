import type { AuditConfig } from '../config.js';
import { topicNames, type TopicNames } from '../contract/operations.js';
import type { AuditClients } from './clients.js';
import { AuditError } from './errors.js';
import { buildFilter, inWindow, type FilterCriteria } from './filters.js';
import type { Progress } from './progress.js';
import { readRanges, type ReaderDeps, type ReadSummary } from './reader.js';
import { decodeRecord, type DecodedRecord } from './records.js';
import { selectTopics, type TopicSelection } from './topics.js';
import { resolveRanges, totalMessages, type Window } from './window.js';

/**
 * What replay and redrive share: choose the topics, fix the window's offsets, read them once,
 * decode and filter, and hand each kept message on.
 */
export interface AuditContext {
  config: AuditConfig;
  clients: AuditClients;
  progress: Progress;
  warn: (message: string) => void;
  signal?: AbortSignal | undefined;
  /** Tests keep the throwaway group to inspect it. */
  keepGroup?: boolean;
  idleTimeoutMs?: number;
}

export interface ScanRequest {
  selection: TopicSelection;
  window: Window;
  filter: FilterCriteria;
  /**
   * Called once the topics and the window's offsets are known, before the first message is
   * read: a command audits its read here, and nothing is read when this throws.
   */
  onStart?: OnScanStart | undefined;
  onMatch(record: DecodedRecord): Promise<void>;
}

/** What a read is about to read: its topics and the offsets its window spans. */
export interface ScanStart {
  topics: readonly string[];
  spanned: number;
}
export type OnScanStart = (start: ScanStart) => Promise<void>;

export interface ScanSummary {
  topics: string[];
  /** Offsets the window spans (control records included). */
  spanned: number;
  read: number;
  matched: number;
  undecodable: number;
  /** Messages kept that carry a timestamp outside the time window (see filters.ts: inWindow). */
  stampedOutside: number;
  reader: ReadSummary;
}

export async function scan(ctx: AuditContext, request: ScanRequest): Promise<ScanSummary> {
  const names = namesOf(ctx);
  const { admin, codec } = ctx.clients;
  const existing = new Set(await admin.listTopics());
  const topics = selectTopics(names, request.selection, existing);
  const ranges = await resolveRanges({ admin }, topics, request.window);
  const spanned = totalMessages(ranges);
  if (spanned === 0)
    throw new AuditError('EMPTY_WINDOW', `no messages in ${describe(topics)} ${windowText(request.window)}`);
  await request.onStart?.({ topics, spanned });
  const keep = buildFilter(names, request.filter);
  const counts = { read: 0, matched: 0, undecodable: 0, stampedOutside: 0 };
  ctx.progress.start(spanned);
  let reader: ReadSummary;
  try {
    reader = await readRanges(readerDeps(ctx), {
      ranges,
      signal: ctx.signal,
      ...(ctx.keepGroup === undefined ? {} : { keepGroup: ctx.keepGroup }),
      ...(ctx.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: ctx.idleTimeoutMs }),
      onProgress: (value) => {
        ctx.progress.update(value);
      },
      onRecord: async (raw) => {
        counts.read += 1;
        const record = await decodeRecord(codec, raw);
        if (record.error !== undefined) counts.undecodable += 1;
        if (!keep(record)) return;
        if (!inWindow(record, request.window)) counts.stampedOutside += 1;
        counts.matched += 1;
        await request.onMatch(record);
      },
    });
  } finally {
    ctx.progress.stop();
  }
  for (const p of reader.unfinished) {
    ctx.warn(
      `stopped waiting on ${p.topic}/${p.partition} at offset ${p.offset}: no progress (records deleted while reading?)`,
    );
  }
  return { topics, spanned, ...counts, reader };
}

function readerDeps(ctx: AuditContext): ReaderDeps {
  return {
    openConsumer: (groupId) => ctx.clients.openConsumer(groupId),
    admin: ctx.clients.admin,
    clientId: ctx.config.KAFKA_CLIENT_ID,
    serviceGroupId: ctx.config.KAFKA_GROUP_ID,
    warn: ctx.warn,
  };
}

export function namesOf(ctx: AuditContext): TopicNames {
  return topicNames(ctx.config.TOPIC_PREFIX);
}

function describe(topics: readonly string[]): string {
  return topics.length <= 3
    ? topics.join(', ')
    : `${topics.length} topics (${topics.slice(0, 2).join(', ')}, …)`;
}

function windowText(window: Window): string {
  if (window.kind === 'time') {
    const from = window.from?.toISOString() ?? 'the beginning';
    const to = window.to?.toISOString() ?? 'now';
    return `between ${from} and ${to}`;
  }
  const partition = window.partition === undefined ? 'any partition' : `partition ${window.partition}`;
  return `in ${partition} between offsets ${window.fromOffset ?? 'first'} and ${window.toOffset ?? 'last'}`;
}
