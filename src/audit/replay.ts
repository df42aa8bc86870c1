import { AuditError } from './errors.js';
import type { FilterCriteria } from './filters.js';
import { toAuditLine, type LineSink } from './jsonl.js';
import type { DecodedRecord } from './records.js';
import { openRepublisher, type Republisher } from './republish.js';
import { readTrail } from './collect.js';
import { scan, type AuditContext, type ScanStart, type ScanSummary } from './scan.js';
import type { TopicSelection } from './topics.js';
import type { Window } from './window.js';

/**
 * `replay`: the messages of a window as JSON Lines, or republished to another topic. Lines are
 * written as they are read (per partition in log order); a trail is collected and written
 * in time order once every topic is read.
 */
export type ReplayOutput = { kind: 'lines'; sink: LineSink } | { kind: 'topic'; topic: string };

export interface ReplayOptions {
  selection: TopicSelection;
  window: Window;
  filter: FilterCriteria;
  /** Sort across topics into the trail of a request. */
  trail: boolean;
  output: ReplayOutput;
  audit?: ReplayAudit;
}

/** The command's audit of what it shows (commands.ts: events on `<prefix>.audit`). */
export interface ReplayAudit {
  /** Before the first message is read; nothing is read when it throws. */
  started(start: ScanStart): Promise<void>;
  /** When the read ends, completed or not, with the messages written so far. */
  finished(written: number): Promise<void>;
}

export interface ReplaySummary extends ScanSummary {
  written: number;
}

/** Header naming the message a republished copy comes from: `<topic>/<partition>/<offset>`. */
export const REPLAY_HEADER = 'x-replay-of';

export async function runReplay(ctx: AuditContext, options: ReplayOptions): Promise<ReplaySummary> {
  const { output } = options;
  let publisher: Republisher | undefined;
  if (output.kind === 'topic') {
    const existing = new Set(await ctx.clients.admin.listTopics());
    if (!existing.has(output.topic)) throw new AuditError('UNKNOWN_TOPIC', `unknown topic: ${output.topic}`);
    publisher = await openRepublisher(ctx.clients.kafka);
  }
  let written = 0;
  const emit = async (record: DecodedRecord): Promise<void> => {
    if (publisher && output.kind === 'topic') {
      const { topic, partition, offset, key, value, headers } = record.source;
      await publisher.add({
        topic: output.topic,
        key,
        value,
        headers: { ...headers, [REPLAY_HEADER]: `${topic}/${partition}/${offset}` },
      });
    } else if (output.kind === 'lines') {
      await output.sink.write(toAuditLine(record));
    }
    written += 1;
  };
  const { audit } = options;
  const onStart = audit && ((start: ScanStart) => audit.started(start));
  try {
    if (options.trail) {
      const { records, summary } = await readTrail(ctx, options.window, options.filter, onStart);
      for (const record of records) await emit(record);
      return { ...summary, written };
    }
    const summary = await scan(ctx, {
      selection: options.selection,
      window: options.window,
      filter: options.filter,
      onStart,
      onMatch: emit,
    });
    return { ...summary, written };
  } finally {
    try {
      await audit?.finished(written);
    } finally {
      await publisher?.close();
    }
  }
}
