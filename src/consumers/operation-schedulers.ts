import { OPERATIONS, type Operation } from '../contract/operations.js';
import { KeyScheduler, type Task } from './key-scheduler.js';

/**
 * One KeyScheduler per operation, each with `maxInFlight` slots: a bulkhead. A request holds
 * its slot while it waits, for an open breaker (the whole outage), a slow rate or a backoff; in
 * one shared scheduler an operation whose vendor was down ended up holding every slot, and the
 * healthy operations stopped with it. Ordering keys never span operations (their scope is a
 * request topic's partition), so per-key order is each scheduler's own.
 */
export class OperationSchedulers {
  private readonly byOperation: ReadonlyMap<Operation, KeyScheduler>;

  constructor(maxInFlight: number, onTaskError: (error: unknown) => void) {
    this.byOperation = new Map(OPERATIONS.map((op) => [op, new KeyScheduler(maxInFlight, onTaskError)]));
  }

  submit(operation: Operation, orderingKey: string | undefined, scope: string, task: Task): void {
    this.of(operation).submit(orderingKey, scope, task);
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

  private of(operation: Operation): KeyScheduler {
    const scheduler = this.byOperation.get(operation);
    if (!scheduler) throw new Error(`no scheduler for operation ${operation}`);
    return scheduler;
  }

  private sum(count: (scheduler: KeyScheduler) => number): number {
    let total = 0;
    for (const scheduler of this.byOperation.values()) total += count(scheduler);
    return total;
  }
}
