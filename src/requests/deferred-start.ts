/**
 * A promise whose work starts on the first `start()`, not when it is made. Waiting on
 * `promise` does not start it. The idempotency claim is one: made as a request begins, sent
 * only as its limiter slot is asked of Redis, so that both go in one write (the service's
 * Redis client sends the commands of one turn together: observability/redis-client.ts).
 */
export class DeferredStart<T> {
  readonly promise: Promise<T>;
  private work: (() => Promise<T>) | undefined;
  private settle!: { resolve: (value: T) => void; reject: (reason: unknown) => void };

  constructor(work: () => Promise<T>) {
    this.work = work;
    this.promise = new Promise<T>((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  /** Whether the work was started (and so `promise` will settle). */
  get started(): boolean {
    return this.work === undefined;
  }

  /** Starts the work if it has not started; returns `promise`. */
  start = (): Promise<T> => {
    const work = this.work;
    if (work) {
      this.work = undefined;
      let running: Promise<T>;
      try {
        running = work();
      } catch (error) {
        running = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      running.then(this.settle.resolve, this.settle.reject);
    }
    return this.promise;
  };
}
