import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { redisScript, runScript, ScriptBatch, type ScriptSender } from '../../src/redis-script.js';

describe('ScriptBatch on Redis', () => {
  const redis = new Redis(inject('redisUrl'), { enableAutoPipelining: true });
  const prefix = `script-batch-${randomUUID()}`;
  const send: ScriptSender = (script, keys, args) => runScript(redis, script, keys, args);
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('runs the script once per call, in order, with each call its own keys, args and reply', async () => {
    const incrBy = redisScript("return redis.call('incrby', KEYS[1], ARGV[1])");
    const batch = new ScriptBatch(send, incrBy, { keys: 1, args: 1, flushOn: 'tick' });
    const [a, b] = [`${prefix}:a`, `${prefix}:b`];
    const replies = await Promise.all([batch.run([a], [1]), batch.run([b], [10]), batch.run([a], [2])]);
    expect(replies).toEqual([1, 10, 3]);
    expect(await redis.mget(a, b)).toEqual(['3', '10']);
  });

  it('answers a failing call with its own error and the others with theirs, nil included', async () => {
    const incr = redisScript(
      "if ARGV[1] == 'nothing' then return nil end return redis.call('incr', KEYS[1])",
    );
    const batch = new ScriptBatch(send, incr, { keys: 1, args: 1, flushOn: 'turn' });
    const text = `${prefix}:text`;
    await redis.set(text, 'not a number');
    const settled = await Promise.allSettled([
      batch.run([`${prefix}:n`], ['']),
      batch.run([text], ['']),
      batch.run([`${prefix}:n`], ['nothing']),
      batch.run([`${prefix}:n`], ['']),
    ]);
    expect(settled[0]).toEqual({ status: 'fulfilled', value: 1 });
    expect(settled[1].status).toBe('rejected');
    expect(String((settled[1] as PromiseRejectedResult).reason)).toContain('not an integer');
    expect(settled[2]).toEqual({ status: 'fulfilled', value: null });
    expect(settled[3]).toEqual({ status: 'fulfilled', value: 2 });
  });

  it('sends the batched script by its text when Redis does not have it yet', async () => {
    // A script text no other test sends: Redis cannot have its batched form cached.
    const fresh = redisScript(`return '${randomUUID()}' .. KEYS[1]`);
    const batch = new ScriptBatch(send, fresh, { keys: 1, args: 0, flushOn: 'tick' });
    const replies = await Promise.all([batch.run(['x'], []), batch.run(['y'], [])]);
    expect(replies.map((reply) => Buffer.isBuffer(reply) && reply.toString().slice(-1))).toEqual(['x', 'y']);
  });
});
