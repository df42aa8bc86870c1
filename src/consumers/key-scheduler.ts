/**
 * Runs tasks concurrently, at most `maxInFlight` at once, while tasks that share an ordering
 * key run one after the other in submission order. Keys are scoped by the caller (topic,
 * partition and message key), so per-key order holds beyond the partition count.
 *
 * Invariant: a queue is either waiting in `ready` (its head not started) or running its head.
 */
export type Task = () => Promise<void>;

interface KeyQueue {
  readonly key: string | undefined;
  /** Group the task belongs to (a partition), for dropping queued work on revocation. */
  readonly scope: string;
  readonly tasks: Task[];
}

export class KeyScheduler {
  private readonly byKey = new Map<string, KeyQueue>();
  private readonly running = new Set<KeyQueue>();
  private ready: KeyQueue[] = [];
  private queuedCount = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly maxInFlight: number,
    private readonly onTaskError: (error: unknown) => void,
  ) {}

  get inFlight(): number {
    return this.running.size;
  }

  get queued(): number {
    return this.queuedCount;
  }

  /** `orderingKey` undefined: no ordering constraint (a message without a key). */
  submit(orderingKey: string | undefined, scope: string, task: Task): void {
    this.queuedCount += 1;
    const existing = orderingKey === undefined ? undefined : this.byKey.get(orderingKey);
    if (existing) {
      existing.tasks.push(task);
      return;
    }
    const queue: KeyQueue = { key: orderingKey, scope, tasks: [task] };
    if (orderingKey !== undefined) this.byKey.set(orderingKey, queue);
    this.ready.push(queue);
    this.pump();
  }

  /** Drops queued (not started) tasks whose scope matches; returns how many were dropped. */
  dropQueued(matches: (scope: string) => boolean): number {
    let dropped = 0;
    this.ready = this.ready.filter((queue) => {
      if (!matches(queue.scope)) return true;
      dropped += queue.tasks.length;
      if (queue.key !== undefined) this.byKey.delete(queue.key);
      return false;
    });
    for (const queue of this.running) {
      if (!matches(queue.scope)) continue;
      dropped += queue.tasks.length - 1;
      queue.tasks.length = 1;
    }
    this.queuedCount -= dropped;
    this.notifyIdle();
    return dropped;
  }

  /** Resolves when nothing runs and nothing is queued. */
  idle(): Promise<void> {
    if (this.running.size === 0 && this.queuedCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.running.size < this.maxInFlight) {
      const queue = this.ready.shift();
      if (!queue) return;
      const task = queue.tasks[0];
      if (!task) continue;
      this.running.add(queue);
      this.queuedCount -= 1;
      void this.run(queue, task);
    }
  }

  private async run(queue: KeyQueue, task: Task): Promise<void> {
    try {
      await task();
    } catch (error) {
      this.onTaskError(error);
    }
    this.running.delete(queue);
    queue.tasks.shift();
    if (queue.tasks.length > 0) this.ready.push(queue);
    else if (queue.key !== undefined) this.byKey.delete(queue.key);
    this.pump();
    this.notifyIdle();
  }

  private notifyIdle(): void {
    if (this.running.size !== 0 || this.queuedCount !== 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
