import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

/** A Lua script with its SHA-1 digest, sent by digest (EVALSHA) once Redis has it cached. */
export interface RedisScript {
  lua: string;
  sha: string;
}

export function redisScript(lua: string): RedisScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * ioredis has a Buffer-replying variant of every command at run time, untyped. `callBuffer`
 * would be typed, but through auto-pipelining it sends the script's digest as the command name.
 */
interface BufferScripting {
  evalshaBuffer(sha: string, numKeys: number, ...keysAndArgs: (string | number | Buffer)[]): Promise<unknown>;
  evalBuffer(lua: string, numKeys: number, ...keysAndArgs: (string | number | Buffer)[]): Promise<unknown>;
}

/**
 * Runs the script by digest, and by its text the first time (or after Redis lost its script
 * cache). Bulk replies come back as Buffers (they may hold gzip), integers as numbers.
 */
export async function runScript(
  redis: Redis,
  script: RedisScript,
  keys: readonly string[],
  args: readonly (string | number | Buffer)[],
): Promise<unknown> {
  const client = redis as unknown as BufferScripting;
  try {
    return await client.evalshaBuffer(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return client.evalBuffer(script.lua, keys.length, ...keys, ...args);
  }
}
