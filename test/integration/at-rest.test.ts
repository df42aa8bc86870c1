/**
 * Issue 39, personal data at rest: what the service keeps in Redis (paid outcomes) is sealed
 * with AES-256-GCM under a key id, keys rotate without downtime, values stored in clear before
 * the upgrade are still read, and a key dropped while its values live stops start-up. On the
 * real broker, registry, Redis and sandbox.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { isSealed, sealedKeyId } from '../../src/at-rest/cipher.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/errors.js';
import { requestKeys } from '../../src/requests/idempotency.js';
import { topicNames } from '../../src/contract/operations.js';
import { startService } from '../../src/main.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { createLogger } from '../../src/observability/logger.js';
import { publish, serviceEnv, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});

const key = (id: string): string => `${id}:${randomBytes(32).toString('base64')}`;
const INDEX_KEY = randomBytes(32).toString('base64');

/** Every string in a JSON value of at least `min` characters (names, addresses, ids). */
function stringsIn(value: unknown, min = 6): string[] {
  if (typeof value === 'string') return value.length >= min ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => stringsIn(v, min));
  if (typeof value === 'object' && value !== null)
    return Object.values(value).flatMap((v) => stringsIn(v, min));
  return [];
}

describe('personal data at rest in Redis', () => {
  it("a paid outcome's Redis value holds none of the request's tax id nor the vendor's names in clear", async () => {
    const k1 = key('k1');
    const { prefix, collector } = await stack.start('at-rest-clear', {
      env: { REDIS_ENCRYPTION_KEYS: k1, REDIS_INDEX_KEY: INDEX_KEY },
    });
    const taxId = cpfFor('happy', 39_001);
    const topic = topicNames(prefix).request('lawsuits-summary');
    await publish(stack.kafka, topic, [{ key: taxId, value: { requestId: 'clear-1', params: { taxId } } }]);
    await collector.waitFor(() => collector.results().length === 1, 60_000, 'the result');
    const result = collector.results()[0]?.value;
    const stored = await redis.getBuffer(requestKeys(`${prefix}:idempotency`, 'clear-1').paid);
    expect(stored).not.toBeNull();
    const raw = stored ?? Buffer.alloc(0);
    expect(isSealed(raw)).toBe(true);
    expect(sealedKeyId(raw)).toBe('k1');
    const text = raw.toString('latin1');
    const personal = [taxId, ...stringsIn(result?.response)];
    expect(personal.length).toBeGreaterThan(1);
    for (const value of personal) expect([value, text.includes(value)]).toEqual([value, false]);
    // The keys never reach Redis: neither the key material nor the index key.
    const everything = await redis.keys(`${prefix}:*`);
    for (const name of everything) {
      const type = await redis.type(name);
      const dump =
        type === 'string' ? ((await redis.getBuffer(name)) ?? Buffer.alloc(0)).toString('latin1') : '';
      expect(dump).not.toContain(k1.slice(3));
      expect(name).not.toContain(INDEX_KEY);
    }
  });

  it('rotates keys without downtime, reads values stored in clear within REDIS_CLEAR_VALUES_UNTIL, and refuses to start without a key still in use', async () => {
    const prefix = testPrefix('at-rest-rotate');
    const [k1, k2] = [key('k1'), key('k2')];
    const sandbox = await stack.sandbox();
    const topic = topicNames(prefix).request('lawsuits-summary');
    const paidKey = (requestId: string): string => requestKeys(`${prefix}:idempotency`, requestId).paid;
    const request = (requestId: string, n: number) => {
      const taxId = cpfFor('happy', n);
      return { key: taxId, value: { requestId, params: { taxId } } };
    };
    // Before: k1 seals.
    const first = await stack.service(prefix, sandbox, {
      REDIS_ENCRYPTION_KEYS: k1,
      REDIS_INDEX_KEY: INDEX_KEY,
    });
    // After the service: it creates the topics.
    const collector = await stack.collector(prefix);
    const answered = (requestId: string, count: number) =>
      collector.waitFor(
        () => collector.results().filter((r) => r.value.requestId === requestId).length === count,
        60_000,
        `${count} result(s) of ${requestId}`,
      );

    await publish(stack.kafka, topic, [request('rot-1', 39_101)]);
    await answered('rot-1', 1);
    await first.service.stop();
    expect(sealedKeyId((await redis.getBuffer(paidKey('rot-1'))) ?? Buffer.alloc(0))).toBe('k1');
    const billedBefore = sandbox.counters().billed;

    // A value stored in clear by a version before encryption at rest.
    const clear = JSON.stringify({
      paramsHash: null,
      outcome: { status: 'ok', response: { legacy: true }, vendor: { httpStatus: 200 } },
    });
    await redis.set(paidKey('rot-legacy'), clear, 'EX', 600);

    // After the rotation: k2 seals, k1 still opens; values in clear are read for the migration.
    const second = await stack.service(prefix, sandbox, {
      REDIS_ENCRYPTION_KEYS: `${k2}\n${k1}`,
      REDIS_INDEX_KEY: INDEX_KEY,
      REDIS_CLEAR_VALUES_UNTIL: new Date(Date.now() + 10 * 60_000).toISOString(),
    });
    await publish(stack.kafka, topic, [
      request('rot-1', 39_101),
      request('rot-legacy', 39_102),
      request('rot-2', 39_103),
    ]);
    await answered('rot-1', 2);
    await answered('rot-legacy', 1);
    await answered('rot-2', 1);
    await second.service.stop();
    // rot-1 and rot-legacy were reused, not paid again; only rot-2 was billed.
    expect(sandbox.counters().billed).toBe(billedBefore + 1);
    expect(collector.results().find((r) => r.value.requestId === 'rot-legacy')?.value.response).toEqual({
      legacy: true,
    });
    expect(sealedKeyId((await redis.getBuffer(paidKey('rot-2'))) ?? Buffer.alloc(0))).toBe('k2');

    // k1 dropped while what it sealed is still within the dedupe window: start-up stops.
    const config = loadConfig(
      serviceEnv(prefix, sandbox, { REDIS_ENCRYPTION_KEYS: k2, REDIS_INDEX_KEY: INDEX_KEY }),
    );
    let caught: unknown;
    try {
      const service = await startService(config, createLogger({ level: 'silent' }));
      await service.stop();
    } catch (error) {
      caught = error;
    }
    const message = caught instanceof Error ? caught.message : String(caught);
    expect(message).toMatch(/^REDIS_ENCRYPTION_KEYS: Redis may hold values sealed with key id "k1" until /);
    expect(message).not.toContain(k1.slice(3));
    expect(message).not.toContain(k2.slice(3));
  });

  it('a different key under a key id that sealed before stops start-up, naming the setting (issue 50, finding 9)', async () => {
    const prefix = testPrefix('at-rest-check');
    const sandbox = await stack.sandbox();
    const [first, second] = [key('k1'), key('k1')];
    const started = await stack.service(prefix, sandbox, {
      REDIS_ENCRYPTION_KEYS: first,
      REDIS_INDEX_KEY: INDEX_KEY,
    });
    const collector = await stack.collector(prefix);
    const taxId = cpfFor('happy', 39_201);
    await publish(stack.kafka, topicNames(prefix).request('lawsuits-summary'), [
      { key: taxId, value: { requestId: 'check-1', params: { taxId } } },
    ]);
    await collector.waitFor(() => collector.results().length === 1, 60_000, 'the result');
    await started.service.stop();
    expect(
      sealedKeyId(
        (await redis.getBuffer(requestKeys(`${prefix}:idempotency`, 'check-1').paid)) ?? Buffer.alloc(0),
      ),
    ).toBe('k1');

    // The same id, other bytes (a key regenerated, or another deployment's): it would start, then
    // fail on the first value k1 sealed. Start-up stops instead.
    const config = loadConfig(
      serviceEnv(prefix, sandbox, { REDIS_ENCRYPTION_KEYS: second, REDIS_INDEX_KEY: INDEX_KEY }),
    );
    let caught: unknown;
    try {
      const service = await startService(config, createLogger({ level: 'silent' }));
      await service.stop();
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const message = (caught as Error).message;
    expect(message).toMatch(
      /^REDIS_ENCRYPTION_KEYS: key id "k1" is not the key that sealed under that id before/,
    );
    expect(message).not.toContain(first.slice(3));
    expect(message).not.toContain(second.slice(3));

    // The right key starts again.
    const again = await stack.service(prefix, sandbox, {
      REDIS_ENCRYPTION_KEYS: first,
      REDIS_INDEX_KEY: INDEX_KEY,
    });
    await again.service.stop();
  });
});
