/**
 * The offset between this process's clock and Redis's (local − Redis, in ms), estimated the way
 * NTP does from request/answer pairs: a sample `(sentAt + answeredAt) / 2 − redisNow` is off by
 * at most half its round trip, so the sample with the shortest round trip wins. Round trips
 * grow when the event loop is busy (the answer waits in the socket), so only the best sample of
 * the current and the previous epoch counts; the epoch bounds how long a clock step takes to
 * be noticed.
 */
export interface ClockOffset {
  /** Records one round trip; all times in ms, `sentAt` and `answeredAt` on the local clock. */
  sample(sentAt: number, answeredAt: number, redisNowMs: number): void;
  /** The best estimate so far (0 before any sample). */
  readonly offsetMs: number;
}

interface Sample {
  offsetMs: number;
  rttMs: number;
}

export function createClockOffset(epochMs = 5_000): ClockOffset {
  let epoch = -1;
  let current: Sample | undefined;
  let previous: Sample | undefined;
  let best: Sample | undefined;

  return {
    sample(sentAt, answeredAt, redisNowMs) {
      const rttMs = Math.max(0, answeredAt - sentAt);
      const candidate = { offsetMs: (sentAt + answeredAt) / 2 - redisNowMs, rttMs };
      const at = Math.floor(answeredAt / epochMs);
      if (at !== epoch) {
        previous = at === epoch + 1 ? current : undefined;
        current = undefined;
        epoch = at;
      }
      if (!current || rttMs <= current.rttMs) current = candidate;
      best = previous && previous.rttMs < current.rttMs ? previous : current;
    },
    get offsetMs() {
      return best?.offsetMs ?? 0;
    },
  };
}
