import type { Redis } from 'ioredis';

/**
 * Counts the calls of one client method (the commands the code asks ioredis for, whatever
 * auto-pipelining then puts in one write) until restored.
 */
export function countCalls(
  redis: Redis,
  method: 'evalsha' | 'evalshaBuffer',
): { count(): number; reset(): void; restore(): void } {
  const client = redis as unknown as Record<typeof method, (...args: unknown[]) => Promise<unknown>>;
  const original = client[method];
  let count = 0;
  client[method] = function (this: unknown, ...args: unknown[]) {
    count += 1;
    return original.apply(this, args);
  };
  return {
    count: () => count,
    reset: () => {
      count = 0;
    },
    restore: () => {
      client[method] = original;
    },
  };
}
