import Bottleneck from 'bottleneck';
import type { Logger } from '../observability/logger.js';
import { skipUnheardEvents } from './bottleneck-events.js';
import { useMicrotaskYield } from './bottleneck-yield.js';
import { LimiterClosedError } from './errors.js';

/** The most calls one bottleneck job carries. */
const MAX_GROUP = 32;

export interface BatchEntry {
  /** Runs the call once bottleneck gives its group a concurrency slot. */
  job: () => Promise<void>;
  /** Ends the call's waiting with an error (the limiter closed). */
  fail: (error: unknown) => void;
}

/**
 * The local queue and concurrency of one operation's limiter: bottleneck, fed in groups.
 * Calls scheduled in the same turn of the event loop go to bottleneck as one job weighing as
 * many calls (up to `groupSize`): its queue and maxConcurrent hold as before, while its
 * per-job cost (a serialised submit path, about 100 µs of CPU) is paid once a group. A group
 * holds its weight until its last call ends, so groups stay small against maxConcurrent.
 */
export class JobBatcher {
  private readonly bottleneck: Bottleneck;
  private readonly groupSize: number;
  /** Entries of this turn, by bottleneck priority (lanes: lane-gate.ts). */
  private pending = new Map<number, BatchEntry[]>();
  private flushing: NodeJS.Immediate | undefined;

  constructor(maxConcurrent: number, logger: Logger) {
    useMicrotaskYield();
    skipUnheardEvents();
    this.bottleneck = new Bottleneck({ maxConcurrent });
    this.bottleneck.on('error', (error: unknown) => {
      logger.error({ err: error }, 'local scheduler failed');
    });
    this.groupSize = Math.max(1, Math.min(MAX_GROUP, Math.floor(maxConcurrent / 8)));
  }

  enqueue(entry: BatchEntry, priority: number): void {
    const same = this.pending.get(priority);
    if (same) same.push(entry);
    else this.pending.set(priority, [entry]);
    this.flushing ??= setImmediate(() => {
      this.flush();
    });
  }

  /** Fails the calls not yet handed to bottleneck, and drops the ones waiting in it. */
  async close(): Promise<void> {
    clearImmediate(this.flushing);
    for (const entries of this.pending.values())
      for (const entry of entries) entry.fail(new LimiterClosedError());
    this.pending.clear();
    await this.bottleneck.stop({ dropWaitingJobs: true, dropErrorMessage: 'limiter closed' });
  }

  private flush(): void {
    this.flushing = undefined;
    const byPriority = this.pending;
    this.pending = new Map();
    for (const [priority, entries] of byPriority) {
      for (let from = 0; from < entries.length; from += this.groupSize) {
        const group = entries.slice(from, from + this.groupSize);
        this.bottleneck
          .schedule({ weight: group.length, priority }, () =>
            Promise.allSettled(group.map((entry) => entry.job())),
          )
          .catch(() => {
            for (const entry of group) entry.fail(new LimiterClosedError());
          });
      }
    }
  }
}
