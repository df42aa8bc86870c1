import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { within } from '../within.js';

type CommandArgs = Parameters<Redis['sendCommand']>;

/**
 * A connection whose commands of one turn of the event loop reach Redis in one write, in the
 * order they were made: the socket is corked at the turn's first command and uncorked once the
 * turn's callbacks have run (setImmediate, where ioredis's auto-pipelining flushes too).
 *
 * It replaces auto-pipelining, which sends the same writes through a Pipeline object per
 * flush, holds later commands until the running pipeline's replies are in, answers each
 * through an extra tick, and sends a transaction made after a lone command ahead of it. A lone
 * EVALSHA cost the client 42 µs of CPU corked against 56 auto-pipelined, ten in one turn 9.2
 * against 12.8 µs each (local Redis, Node 24, 20k commands); benchmark (a), 40k requests in
 * four pairs of runs in turns, 0.366-0.371 CPU-ms per request against 0.370-0.403. In (b) the
 * difference is within the noise (each answer's store is a turn of its own either way).
 */
class TurnWritingRedis extends Redis {
  #corked = false;

  override sendCommand(...[command, stream]: CommandArgs): unknown {
    // `stream` is given when a pipeline or a transaction collects its commands: written whole.
    if (!stream && !this.#corked && this.status === 'ready') {
      const socket = this.stream;
      socket.cork();
      this.#corked = true;
      setImmediate(() => {
        this.#corked = false;
        socket.uncork();
      });
    }
    return super.sendCommand(command, stream);
  }
}

/**
 * The service's Redis connection (TurnWritingRedis). ioredis prints "Unhandled error event"
 * to stderr for an 'error' without a listener, so one is always attached; what it logs leaves
 * out the failed command's arguments, which carry cached outcomes and pending searches (names,
 * tax ids).
 */
export function createRedisClient(
  url: string,
  logger: Logger,
  options: Omit<RedisOptions, 'replyMapping'> = {},
): Redis {
  const redis = new TurnWritingRedis(url, { maxRetriesPerRequest: 3, ...options });
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

const MAX_ERROR_DEPTH = 16;

/**
 * A copy of an error without ioredis's `command.args` or `args` at any depth: a failed command's
 * error carries the values it tried to write, and a refused transaction (EXECABORT) carries each
 * queued command under `previousErrors[].command.args`, which a `cause`-only walk misses. Arrays
 * and nested objects are walked too; the walk is bounded and safe on cycles.
 */
export function withoutCommandArgs(error: unknown): unknown {
  return stripArgs(error, 0, new WeakSet<object>());
}

function stripArgs(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (depth > MAX_ERROR_DEPTH) return '[too deep]';
  if (seen.has(value)) return '[circular]';
  if (Buffer.isBuffer(value) || value instanceof Date) return value;
  seen.add(value);
  if (Array.isArray(value)) return value.map((item: unknown) => stripArgs(item, depth + 1, seen));
  const source = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    if (key === 'args') continue;
    const field = source[key];
    copy[key] =
      key === 'command' && typeof field === 'object' && field !== null
        ? { name: (field as { name?: unknown }).name }
        : stripArgs(field, depth + 1, seen);
  }
  if (value instanceof Error) {
    copy.type = value.name;
    copy.message = value.message;
    copy.stack = value.stack;
  }
  return copy;
}
