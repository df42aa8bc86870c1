/** The settings of `Gathering`. */
export interface GatheringSettings {
  share: number;
  maxMs: number;
}

/**
 * Answers that arrive close together go on together. Behind a paced vendor, each answer lands
 * on its own turn of the event loop, and everything after it (the outcome's encoding and
 * commit, the next request's start, its claim and its limiter job) then costs a turn, Redis
 * and Kafka writes and a wake-up of its own. Held for a few milliseconds, the answers of that
 * span continue in one turn, and that work is shared.
 *
 * The hold is a share of the time the request has already taken (`share`, at most `maxMs`):
 * behind a queue under a rate limit, where requests wait seconds, it is the whole `maxMs`;
 * behind a quick vendor it stays a small part of the latency the caller sees. The first answer
 * opens the gathering and waits its whole hold, alone or not; a later one joins it when it
 * closes within the later one's own hold, and otherwise goes on at once; a hold under 1 ms is
 * none. While held, a request keeps its in-flight slot, and the next request with its key waits.
 */
export class Gathering {
  private open: { closesAt: number; released: Promise<void> } | undefined;

  constructor(private readonly settings: GatheringSettings) {}

  /** Resolves once the answers gathered with this one may go on; at once when it need not wait. */
  wait(elapsedMs: number): Promise<void> {
    const holdMs = Math.min(this.settings.maxMs, elapsedMs * this.settings.share);
    if (!(holdMs >= 1)) return Promise.resolve();
    const now = performance.now();
    const { open } = this;
    if (open) return open.closesAt <= now + holdMs ? open.released : Promise.resolve();
    const released = new Promise<void>((resolve) => {
      setTimeout(() => {
        this.open = undefined;
        resolve();
      }, holdMs);
    });
    this.open = { closesAt: now + holdMs, released };
    return released;
  }
}
