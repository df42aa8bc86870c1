import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { redisScript, runScript } from '../../../src/consumers/redis-script.js';

/** Records what is sent; answers NOSCRIPT to EVALSHA until the script was sent by its text. */
function fakeRedis(): { redis: Redis; sent: string[] } {
  const sent: string[] = [];
  let cached = false;
  const redis = {
    evalshaBuffer(...args: unknown[]) {
      sent.push('evalsha');
      if (!cached) return Promise.reject(new Error('NOSCRIPT No matching script.'));
      return Promise.resolve(args.length);
    },
    evalBuffer(...args: unknown[]) {
      sent.push('eval');
      cached = true;
      return Promise.resolve(args.length);
    },
  };
  return { redis: redis as unknown as Redis, sent };
}

describe('runScript', () => {
  const script = redisScript("return redis.call('get', KEYS[1])");

  it('sends the text once when Redis does not know the script, then only its digest', async () => {
    const { redis, sent } = fakeRedis();
    await runScript(redis, script, ['k'], ['a']);
    await runScript(redis, script, ['k'], ['a']);
    expect(sent).toEqual(['evalsha', 'eval', 'evalsha']);
  });

  it('passes other errors on without retrying', async () => {
    const redis = {
      evalshaBuffer: () =>
        Promise.reject(new Error('READONLY You cannot write against a read only replica.')),
    } as unknown as Redis;
    await expect(runScript(redis, script, ['k'], [])).rejects.toThrow('READONLY');
  });

  it('names the script by the SHA-1 of its text, as Redis does', () => {
    expect(redisScript('return 1').sha).toBe('e0e1f9fabfc9d4800c877a703b823ac0578ff8db');
  });
});
