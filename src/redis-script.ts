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
 * A key that a holder owns by its token (a reservation, a claim). KEYS: the key. ARGV: the
 * token. Deletes it only while the token still holds it; 1 if deleted, else 0.
 */
export const RELEASE_IF_OURS = redisScript(
  `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`,
);
/** KEYS: the key. ARGV: the token, a TTL in ms. Renews it only while the token holds it; 1 if so. */
export const EXTEND_IF_OURS = redisScript(
  `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`,
);

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
export function runScript(
  redis: Redis,
  script: RedisScript,
  keys: readonly string[],
  args: readonly (string | number | Buffer)[],
): Promise<unknown> {
  const client = redis as unknown as BufferScripting;
  return byDigestElseText(
    () => client.evalshaBuffer(script.sha, keys.length, ...keys, ...args),
    () => client.evalBuffer(script.lua, keys.length, ...keys, ...args),
  );
}

/** runScript with bulk replies as strings. */
export function runScriptText(
  redis: Redis,
  script: RedisScript,
  keys: readonly string[],
  args: readonly (string | number | Buffer)[],
): Promise<unknown> {
  return byDigestElseText(
    () => redis.evalsha(script.sha, keys.length, ...keys, ...args),
    () => redis.eval(script.lua, keys.length, ...keys, ...args),
  );
}

/** The digest first; the text only when Redis answers that it does not know the digest. */
async function byDigestElseText(
  byDigest: () => Promise<unknown>,
  byText: () => Promise<unknown>,
): Promise<unknown> {
  try {
    return await byDigest();
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return byText();
  }
}

/** Sends a script by digest (runScript or runScriptText). */
export type ScriptSender = (
  script: RedisScript,
  keys: readonly string[],
  args: readonly (string | number | Buffer)[],
) => Promise<unknown>;

export interface ScriptBatchOptions {
  /** The keys and the args every call of the script passes. */
  keys: number;
  args: number;
  /**
   * When the calls gathered are sent. `tick`: once the code that made them has run (calls
   * made together, such as one group of jobs starting), still within the turn whose commands
   * go to Redis in one write (observability/redis-client.ts), so beside them. `turn`: at
   * the end of this turn of the event loop, so calls made in separate I/O callbacks (vendor
   * answers arriving on separate sockets) go together, one turn later.
   */
  flushOn: 'tick' | 'turn';
  /** The most calls in one script run; more are split. */
  maxCalls?: number;
}

interface PendingCall {
  keys: readonly string[];
  args: readonly (string | number | Buffer)[];
  resolve: (reply: unknown) => void;
  reject: (error: unknown) => void;
}

const MAX_CALLS = 128;

/**
 * The calls of one script made close together, sent to Redis as one script run: a wrapper runs
 * the script once per call, in order, in one atomic step, and answers each call with its own
 * reply or error (one call's error does not fail the others). A lone call is sent as the
 * script itself. Each ioredis command costs the client a command object, its encoding and
 * its promise chain, and Redis a dispatch: in benchmark (a), three scripts per request made
 * ioredis 11.0% of the service's busy time, one run per group of requests 8.5%.
 *
 * The calls' keys go in one script, so on Redis Cluster they must share a slot (a hash tag).
 */
export class ScriptBatch {
  private readonly batched: RedisScript;
  private readonly maxCalls: number;
  private pending: PendingCall[] = [];

  constructor(
    private readonly send: ScriptSender,
    private readonly script: RedisScript,
    private readonly options: ScriptBatchOptions,
  ) {
    if (
      !Number.isInteger(options.keys) ||
      options.keys < 1 ||
      !Number.isInteger(options.args) ||
      options.args < 0
    )
      throw new Error('a batched script needs at least one key per call and a whole number of args');
    this.batched = batchedScript(script, options.keys, options.args);
    this.maxCalls = options.maxCalls ?? MAX_CALLS;
  }

  run(keys: readonly string[], args: readonly (string | number | Buffer)[]): Promise<unknown> {
    if (keys.length !== this.options.keys || args.length !== this.options.args) {
      return Promise.reject(
        new Error(`a batched script call needs ${this.options.keys} keys and ${this.options.args} args`),
      );
    }
    return new Promise((resolve, reject) => {
      this.pending.push({ keys, args, resolve, reject });
      if (this.pending.length > 1) return;
      if (this.options.flushOn === 'tick') process.nextTick(this.flush);
      else setImmediate(this.flush);
    });
  }

  private readonly flush = (): void => {
    const calls = this.pending;
    this.pending = [];
    if (calls.length <= this.maxCalls) {
      this.sendCalls(calls);
      return;
    }
    for (let from = 0; from < calls.length; from += this.maxCalls)
      this.sendCalls(calls.slice(from, from + this.maxCalls));
  };

  private sendCalls(calls: PendingCall[]): void {
    const [only] = calls;
    if (calls.length === 1 && only) {
      this.send(this.script, only.keys, only.args).then(only.resolve, only.reject);
      return;
    }
    const keys: string[] = [];
    const args: (string | number | Buffer)[] = [];
    for (const call of calls) {
      keys.push(...call.keys);
      args.push(...call.args);
    }
    this.send(this.batched, keys, args).then(
      (reply) => {
        if (!Array.isArray(reply) || reply.length !== calls.length) {
          const error = new Error('unexpected batched script reply');
          for (const call of calls) call.reject(error);
          return;
        }
        calls.forEach((call, i) => {
          const one: unknown = reply[i];
          if (one instanceof Error) call.reject(one);
          else call.resolve(one);
        });
      },
      (error: unknown) => {
        for (const call of calls) call.reject(error);
      },
    );
  }
}

/**
 * The script run once per call: keys and args are the calls' own, one after another. Each
 * run's error (from redis.call, or the script's own) becomes that call's error reply; a run
 * answering nil answers nil (false keeps the reply array whole).
 */
export function batchedScript(script: RedisScript, keys: number, args: number): RedisScript {
  return redisScript(`local function one(KEYS, ARGV)
${script.lua}
end
local out = {}
for i = 0, #KEYS / ${keys} - 1 do
  local callKeys, callArgs = {}, {}
  for j = 1, ${keys} do callKeys[j] = KEYS[i * ${keys} + j] end
  for j = 1, ${args} do callArgs[j] = ARGV[i * ${args} + j] end
  local ok, reply = pcall(one, callKeys, callArgs)
  if not ok then
    reply = { err = type(reply) == 'table' and reply.err or tostring(reply) }
  elseif reply == nil then
    reply = false
  end
  out[i + 1] = reply
end
return out`);
}
