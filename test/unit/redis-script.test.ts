import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  batchedScript,
  redisScript,
  runScript,
  ScriptBatch,
  type ScriptSender,
} from '../../src/redis-script.js';

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

describe('ScriptBatch', () => {
  const script = redisScript("return redis.call('get', KEYS[1])");

  /** A sender that answers a batch with `answer(keys, args)`, recording each send. */
  function recordingSender(answer: (keys: readonly string[], args: readonly unknown[]) => unknown) {
    const sends: { sha: string; keys: readonly string[]; args: readonly unknown[] }[] = [];
    const send: ScriptSender = (sent, keys, args) => {
      sends.push({ sha: sent.sha, keys, args });
      const reply = answer(keys, args);
      return reply instanceof Error ? Promise.reject(reply) : Promise.resolve(reply);
    };
    return { send, sends };
  }

  it('sends the calls made together as one run of the batched script, and answers each with its own reply', async () => {
    const { send, sends } = recordingSender((keys) => keys.map((key) => `value of ${key}`));
    const batch = new ScriptBatch(send, script, { keys: 1, args: 1, flushOn: 'tick' });
    const replies = await Promise.all([batch.run(['a'], [1]), batch.run(['b'], [2]), batch.run(['c'], [3])]);
    expect(replies).toEqual(['value of a', 'value of b', 'value of c']);
    expect(sends).toEqual([{ sha: batchedScript(script, 1, 1).sha, keys: ['a', 'b', 'c'], args: [1, 2, 3] }]);
  });

  it('sends a lone call as the script itself', async () => {
    const { send, sends } = recordingSender(() => 'one');
    const batch = new ScriptBatch(send, script, { keys: 1, args: 0, flushOn: 'turn' });
    expect(await batch.run(['a'], [])).toBe('one');
    expect(sends).toEqual([{ sha: script.sha, keys: ['a'], args: [] }]);
  });

  it('fails only the call whose run failed, and every call when the whole send fails', async () => {
    const refused = new Error('WRONGTYPE');
    const { send } = recordingSender(() => ['ok', refused]);
    const batch = new ScriptBatch(send, script, { keys: 1, args: 0, flushOn: 'tick' });
    const [first, second] = await Promise.allSettled([batch.run(['a'], []), batch.run(['b'], [])]);
    expect(first).toEqual({ status: 'fulfilled', value: 'ok' });
    expect(second).toEqual({ status: 'rejected', reason: refused });

    const down = new ScriptBatch(recordingSender(() => new Error('connection closed')).send, script, {
      keys: 1,
      args: 0,
      flushOn: 'tick',
    });
    const settled = await Promise.allSettled([down.run(['a'], []), down.run(['b'], [])]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
  });

  it('refuses a reply that does not answer every call', async () => {
    const { send } = recordingSender(() => ['only one']);
    const batch = new ScriptBatch(send, script, { keys: 1, args: 0, flushOn: 'tick' });
    await expect(Promise.all([batch.run(['a'], []), batch.run(['b'], [])])).rejects.toThrow(
      'unexpected batched script reply',
    );
  });

  it('splits calls past maxCalls into several runs, in order', async () => {
    const { send, sends } = recordingSender((keys) => (keys.length === 1 ? keys[0] : [...keys]));
    const batch = new ScriptBatch(send, script, { keys: 1, args: 0, flushOn: 'tick', maxCalls: 2 });
    const replies = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((key) => batch.run([key], [])));
    expect(replies).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(sends.map((s) => s.keys)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('refuses a script shape without keys, which the wrapper could not split into calls', () => {
    expect(
      () => new ScriptBatch(recordingSender(() => 1).send, script, { keys: 0, args: 1, flushOn: 'tick' }),
    ).toThrow('at least one key per call');
  });

  it('refuses a call with another number of keys or args than the script takes', async () => {
    const batch = new ScriptBatch(recordingSender(() => 1).send, script, {
      keys: 1,
      args: 1,
      flushOn: 'tick',
    });
    await expect(batch.run(['a', 'b'], [1])).rejects.toThrow('needs 1 keys and 1 args');
  });
});
