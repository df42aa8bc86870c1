import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { within } from '../within.js';

/**
 * The service's Redis connection. ioredis prints "Unhandled error event" to stderr for an
 * 'error' without a listener, so one is always attached; what it logs leaves out the failed
 * command's arguments, which carry cached outcomes and pending searches (names, tax ids).
 */
export function createRedisClient(url: string, logger: Logger, options: RedisOptions = {}): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 3, enableAutoPipelining: true, ...options });
  let lastMessage: string | undefined;
  redis.on('error', (error: unknown) => {
    // A down Redis repeats one error per reconnect attempt: log each change, not each attempt.
    const message = error instanceof Error ? error.message : String(error);
    if (message === lastMessage) return;
    lastMessage = message;
    logger.warn({ err: withoutCommandArgs(error) }, 'redis error');
  });
  redis.on('ready', () => {
    if (lastMessage !== undefined) logger.info('redis reachable again');
    lastMessage = undefined;
  });
  return redis;
}

/** Start-up check: fails with a message naming REDIS_URL when Redis does not answer. */
export async function checkRedis(redis: Redis, timeoutMs = 10_000): Promise<void> {
  try {
    await within(redis.ping(), timeoutMs);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`REDIS_URL: Redis does not answer (${reason})`, { cause: withoutCommandArgs(error) });
  }
}

/** Whether the connection is up, for readiness. */
export function redisReady(redis: Redis): boolean {
  return redis.status === 'ready';
}

/**
 * A copy of an error (and its causes) without ioredis's `command.args` or `args`: a failed
 * command's error carries the values it tried to write.
 */
export function withoutCommandArgs(error: unknown, depth = 0): unknown {
  if (typeof error !== 'object' || error === null || depth > 5) return error;
  const source = error as Record<string, unknown> & { command?: unknown };
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (key === 'args') continue;
    copy[key] = key === 'cause' ? withoutCommandArgs(source[key], depth + 1) : source[key];
  }
  if (typeof source.command === 'object' && source.command !== null) {
    const name = (source.command as { name?: unknown }).name;
    copy.command = { name };
  }
  if (error instanceof Error) {
    copy.type = error.name;
    copy.message = error.message;
    copy.stack = error.stack;
  }
  return copy;
}
