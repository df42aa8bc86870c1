import { AuditError } from './errors.js';
import type { FilterCriteria } from './filters.js';
import type { TopicNames } from '../contract/operations.js';
import { kindsReadBy } from '../contract/topics.js';
import type { LineSink } from './jsonl.js';
import type { DecodedRecord } from './records.js';
import { describePlan, planRedrive } from './redrive.js';
import { openRepublisher, type Republisher } from './republish.js';
import { namesOf, scan, type AuditContext, type OnScanStart, type ScanSummary } from './scan.js';
import type { Window } from './window.js';

/**
 * `redrive`: the chosen dead letters of the errors topic, each turned back into its request
 * and republished (redrive.ts says how). One JSON line per dead letter: what would go (dry
 * run), where it went, or why it was skipped. A request is redriven once per run even when
 * the window holds several of its dead letters.
 */
export interface RedriveOptions {
  window: Window;
  filter: FilterCriteria;
  dryRun: boolean;
  sink: LineSink;
  /** Before the first dead letter is read (the command audits keys shown whole here). */
  onStart?: OnScanStart | undefined;
}

export interface RedriveSummary extends ScanSummary {
  redriven: number;
  skipped: number;
}

export async function runRedrive(ctx: AuditContext, options: RedriveOptions): Promise<RedriveSummary> {
  const existing = new Set(await ctx.clients.admin.listTopics());
  const publisher = options.dryRun ? undefined : await openRepublisher(ctx.clients.kafka);
  const partitionCounts = new Map<string, Promise<number>>();
  const run: RedriveRun = {
    names: namesOf(ctx),
    existing,
    partitionCount: (topic) => {
      let count = partitionCounts.get(topic);
      if (!count) {
        count = ctx.clients.admin
          .fetchTopicMetadata({ topics: [topic] })
          .then((metadata) => metadata[0]?.partitions.length ?? 0);
        partitionCounts.set(topic, count);
      }
      return count;
    },
    warn: ctx.warn,
    publisher,
    sink: options.sink,
    seen: new Set(),
    counts: { redriven: 0, skipped: 0 },
  };
  try {
    const summary = await scan(ctx, {
      // What the table says redrive reads: the dead letters.
      selection: { kinds: kindsReadBy('redrive') },
      window: options.window,
      filter: options.filter,
      onStart: options.onStart,
      onMatch: (record) => redriveOne(run, record),
    });
    return { ...summary, ...run.counts };
  } finally {
    await publisher?.close();
  }
}

interface RedriveRun {
  names: TopicNames;
  existing: ReadonlySet<string>;
  partitionCount(topic: string): Promise<number>;
  warn(message: string): void;
  /** Absent on a dry run. */
  publisher: Republisher | undefined;
  sink: LineSink;
  /** `operation + requestId` already redriven in this run. */
  seen: Set<string>;
  counts: { redriven: number; skipped: number };
}

async function redriveOne(run: RedriveRun, record: DecodedRecord): Promise<void> {
  const skip = async (deadLetter: string, reason: string): Promise<void> => {
    run.counts.skipped += 1;
    await run.sink.write({ action: 'skipped', deadLetter, reason });
  };
  const planned = planRedrive(record, run.names);
  if (!planned.ok) return skip(planned.deadLetter, planned.reason);
  const { plan } = planned;
  const once = plan.requestId === null ? undefined : `${plan.operation}\u0000${plan.requestId}`;
  if (once !== undefined && run.seen.has(once))
    return skip(plan.deadLetter, 'request already redriven in this run');
  if (once !== undefined) run.seen.add(once);
  if (!run.publisher) {
    await run.sink.write({ action: 'would-redrive', ...describePlan(plan) });
    return;
  }
  if (!run.existing.has(plan.message.topic)) {
    throw new AuditError('UNKNOWN_TOPIC', `unknown topic: ${plan.message.topic}`);
  }
  const { message } = plan;
  // The partition it was read from, unless the topic was made again with fewer: then the key's.
  const { partition } = message;
  if (partition !== undefined && partition >= (await run.partitionCount(message.topic))) {
    run.warn(
      `${message.topic} has no partition ${String(partition)} any more: ${plan.deadLetter} goes by its key`,
    );
    delete message.partition;
  }
  const at = await run.publisher.sendNow(message);
  run.counts.redriven += 1;
  await run.sink.write({
    action: 'redriven',
    ...describePlan(plan),
    partition: at.partition,
    offset: at.offset,
  });
}
