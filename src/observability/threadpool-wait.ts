/**
 * How long a task given to libuv's thread pool waits before a thread runs it. The Kafka
 * client's blocking calls (a consume, a committed-offsets or metadata read, each step of a
 * transaction) each hold one of the pool's threads while they wait, and a call librdkafka does
 * not return (librdkafka#5456) holds its thread until it does (src/threadpool.ts). Once every
 * thread is taken nothing else of the client runs: no new producer connects, no offsets are
 * read, and outcomes stop while the replica still looks alive. The pool says nothing of itself,
 * so it is asked: a task that does nothing (a 1-byte random fill, which runs on the pool), and
 * the time until it ran.
 */
import { randomFill } from 'node:crypto';

/** How long a scrape waits for its task before it reports the wait so far. */
export const PROBE_BOUND_MS = 250;

/** Gives the pool a task that does nothing and calls `ran` once a thread has run it. */
export type PoolSubmit = (ran: () => void) => void;

const submitToPool: PoolSubmit = (ran) => {
  randomFill(Buffer.alloc(1), () => {
    ran();
  });
};

/**
 * A probe of the pool: each call gives it a task and resolves to the seconds the task waited, or,
 * past `boundMs`, to the seconds waited so far. While a task has not run, no other is given:
 * later calls report how long that one has waited, so a pool taken for minutes reads as minutes,
 * and probing adds nothing to a queue that does not move.
 */
export function threadPoolWait(
  options: { boundMs?: number; submit?: PoolSubmit; now?: () => number } = {},
): () => Promise<number> {
  const { boundMs = PROBE_BOUND_MS, submit = submitToPool, now = () => performance.now() } = options;
  let waiting: { since: number; ran: Promise<number> } | undefined;
  return async () => {
    let probe = waiting;
    if (!probe) {
      const since = now();
      // Set by the task; a pool (or a test's) that runs it at once leaves nothing waiting.
      const task = { done: false };
      const ran = new Promise<number>((resolve) => {
        submit(() => {
          task.done = true;
          if (waiting && waiting.ran === ran) waiting = undefined;
          resolve((now() - since) / 1000);
        });
      });
      probe = { since, ran };
      if (!task.done) waiting = probe;
    }
    const { since, ran } = probe;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<number>((resolve) => {
      timer = setTimeout(() => {
        resolve((now() - since) / 1000);
      }, boundMs);
    });
    try {
      return await Promise.race([ran, bound]);
    } finally {
      clearTimeout(timer);
    }
  };
}
