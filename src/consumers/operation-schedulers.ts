import { LANES, OPERATIONS, type Lane, type Operation } from '../contract/operations.js';
import { KeyScheduler, type Task } from './key-scheduler.js';

/**
 * One KeyScheduler per operation, each with `maxInFlight` slots: a bulkhead. A request holds
 * its slot while it waits, for an open breaker (the whole outage), a slow rate or a backoff; in
 * one shared scheduler an operation whose vendor was down ended up holding every slot, and the
 * healthy operations stopped with it. Ordering keys never span operations (their scope is a
 * request topic's partition), so per-key order is each scheduler's own.
 *
 * Each operation has one per lane, too: a bulk backlog fills its own lane's slots, and an
 * interactive request never waits for a slot behind it (the limiter then serves it first).
 */
export class OperationSchedulers {
  private readonly byOperation: ReadonlyMap<string, KeyScheduler>;

  constructor(maxInFlight: number, onTaskError: (error: unknown) => void) {
    this.byOperation = new Map(
      OPERATIONS.flatMap((op) =>
        LANES.map((lane) => [schedulerId(op, lane), new KeyScheduler(maxInFlight, onTaskError)] as const),
      ),
    );
  }

  submit(
    operation: Operation,
    orderingKey: string | undefined,
    scope: string,
    task: Task,
    lane: Lane = 'interactive',
  ): void {
    this.of(operation, lane).submit(orderingKey, scope, task);
  }

  get inFlight(): number {
    return this.sum((s) => s.inFlight);
  }

  get queued(): number {
    return this.sum((s) => s.queued);
  }

  /** Drops queued (not started) tasks whose scope matches; returns how many were dropped. */
  dropQueued(matches: (scope: string) => boolean): number {
    return this.sum((s) => s.dropQueued(matches));
  }

  /** Resolves when nothing runs and nothing is queued, in any operation. */
  async idle(): Promise<void> {
    await Promise.all([...this.byOperation.values()].map((s) => s.idle()));
  }

  private of(operation: Operation, lane: Lane): KeyScheduler {
    const scheduler = this.byOperation.get(schedulerId(operation, lane));
    if (!scheduler) throw new Error(`no scheduler for operation ${operation}, lane ${lane}`);
    return scheduler;
  }

  private sum(count: (scheduler: KeyScheduler) => number): number {
    let total = 0;
    for (const scheduler of this.byOperation.values()) total += count(scheduler);
    return total;
  }
}

function schedulerId(operation: Operation, lane: Lane): string {
  return `${operation}/${lane}`;
}
