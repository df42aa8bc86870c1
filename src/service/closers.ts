import type { Logger } from 'pino';

/**
 * What the service must release, closed last-in first-out: each part is added once it is
 * built, so a part closes before the parts it was built on (the listeners before the tracker,
 * the tracker before the vendor client, everything before the tracing that records it). A
 * failing close is logged and the rest still close: one stuck client must not keep the
 * others open. Each close runs once, even when closeAll is called again.
 */
export class Closers {
  readonly #entries: { name: string; close: () => Promise<unknown> }[] = [];
  readonly #closing = new AbortController();

  constructor(private readonly logger: Pick<Logger, 'warn'>) {}

  /** Aborts as closing begins: start-up work still retrying (topic creation) gives up. */
  get signal(): AbortSignal {
    return this.#closing.signal;
  }

  /** `name` is a constant naming the part (it is logged when its close fails). */
  add(name: string, close: () => Promise<unknown>): void {
    this.#entries.push({ name, close });
  }

  async closeAll(): Promise<void> {
    this.#closing.abort(new Error('closing'));
    for (let entry = this.#entries.pop(); entry; entry = this.#entries.pop()) {
      try {
        await entry.close();
      } catch (error) {
        this.logger.warn({ err: error, part: entry.name }, 'close failed');
      }
    }
  }
}
