/**
 * Issue 50, finding 2: with encryption at rest on, a value in clear was still trusted. A record
 * written in clear under a paid-outcome key, then a request with matching params, was published
 * as a paid result with no vendor call; a pending search or a heartbeat written in clear was read
 * as the service's own. Whoever can write to Redis must not make a replica serve, publish or skip
 * anything: such values are refused (counted, logged without personal data), and the request
 * is paid for. On the real broker, registry, Redis and sandbox.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DataCipher } from '../../src/at-rest/cipher.js';
import { SubjectIndex } from '../../src/at-rest/subjects.js';
import type { AtRest } from '../../src/config-at-rest.js';
import { heartbeatsKey, redisStatusSource, startHeartbeat } from '../../src/console/heartbeat.js';
import type { ReplicaFigures } from '../../src/console/status.js';
import { topicNames } from '../../src/contract/operations.js';
import { paramsHash, requestKeys } from '../../src/requests/idempotency.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { pendingKeys, redisPendingStore } from '../../src/webhooks/redis-pending-store.js';
import { encodeSearch, type PendingSearch } from '../../src/webhooks/pending-store.js';
import { publish } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});

const atRest = (clearValuesUntil?: number): AtRest => ({
  cipher: new DataCipher([{ id: 'k1', material: randomBytes(32) }], 'REDIS_ENCRYPTION_KEYS'),
  index: new SubjectIndex(randomBytes(32).toString('base64')),
  ...(clearValuesUntil === undefined ? {} : { clearValuesUntil }),
});

describe('values in Redis that the service did not seal are never trusted (issue 50, finding 2)', () => {
  it('a paid outcome written in clear is never published: the request is paid for, and the refusal counted', async () => {
    const { prefix, sandbox, collector, admin } = await stack.start('clear-paid-outcome');
    const taxId = cpfFor('happy', 50_002);
    const params = { taxId };
    const forged = {
      paramsHash: paramsHash(params),
      operation: 'lawsuits-summary',
      outcome: { status: 'ok', response: { forged: true }, vendor: { httpStatus: 200 } },
    };
    await redis.set(
      requestKeys(`${prefix}:idempotency`, 'planted-1').paid,
      JSON.stringify(forged),
      'EX',
      600,
    );
    const billed = sandbox.counters().billed;
    await publish(stack.kafka, topicNames(prefix).request('lawsuits-summary'), [
      { key: taxId, value: { requestId: 'planted-1', params } },
    ]);
    await collector.waitFor(() => collector.results().length === 1, 60_000, 'the result');
    expect(collector.results()[0]?.value.response).not.toEqual({ forged: true });
    expect(sandbox.counters().billed).toBe(billed + 1);
    const metrics = await (await admin('/metrics')).text();
    expect(metrics).toMatch(
      /^verification_redis_values_refused_total\{store="paid-outcome",reason="clear"\} 1$/m,
    );
  });

  it('a pending search written in clear, or sealed with other bytes, is refused and dropped', async () => {
    const prefix = `pending-${randomUUID()}`;
    const rules = atRest();
    const refused: string[] = [];
    const store = redisPendingStore(redis, prefix, {
      atRest: rules,
      indexTtlMs: 60_000,
      onRefused: (reason) => refused.push(reason),
    });
    const { searches, due } = pendingKeys(prefix);
    const search = (requestId: string): PendingSearch => ({
      requestId,
      searchId: `search-of-${requestId}`,
      createdAt: Date.now(),
      key: Buffer.from('ABC1D23').toString('base64'),
      polls: 0,
    });
    const other = new DataCipher([{ id: 'k1', material: randomBytes(32) }], 'REDIS_ENCRYPTION_KEYS');
    const sealedByOther = JSON.stringify({
      searchId: 'search-of-altered',
      sealed: other.seal(encodeSearch(search('altered')), `${searches}:altered`).toString('base64'),
    });
    await redis
      .multi()
      .hset(searches, 'planted', encodeSearch(search('planted')), 'altered', sealedByOther)
      .zadd(due, 0, 'planted', 0, 'altered')
      .exec();
    expect(await store.get('planted')).toBeUndefined();
    expect(await store.get('altered')).toBeUndefined();
    expect(refused).toEqual(['clear', 'unopenable']);
    expect(await redis.hlen(searches)).toBe(0);
    expect(await redis.zcard(due)).toBe(0);
    // What the store sealed itself is read back.
    await store.add(search('own'), Date.now());
    expect(await store.get('own')).toMatchObject({ requestId: 'own', searchId: 'search-of-own' });
    expect(await redis.hget(searches, 'own')).not.toContain('ABC1D23');
    // Within REDIS_CLEAR_VALUES_UNTIL an entry an earlier version wrote in clear is still read.
    await redis.hset(searches, 'earlier', encodeSearch(search('earlier')));
    const migrating = redisPendingStore(redis, prefix, {
      atRest: atRest(Date.now() + 60_000),
      indexTtlMs: 60_000,
    });
    expect(await migrating.get('earlier')).toMatchObject({ requestId: 'earlier' });
    await redis.del(searches, due);
  });

  it('heartbeats are sealed, and one written in clear is refused: the status lists the replicas that beat', async () => {
    const prefix = `hb-${randomUUID()}`;
    const rules = atRest();
    const figures = (replica: string): ReplicaFigures => ({ replica, at: Date.now(), operations: {} });
    const stop = startHeartbeat(
      redis,
      prefix,
      () => figures('replica-a'),
      () => undefined,
      rules,
    );
    await expect.poll(() => redis.hexists(heartbeatsKey(prefix), 'replica-a')).toBe(1);
    const stored = (await redis.hget(heartbeatsKey(prefix), 'replica-a')) ?? '';
    expect(stored).not.toContain('"operations"');
    await redis.hset(heartbeatsKey(prefix), 'planted', JSON.stringify(figures('planted')));
    const refused: string[] = [];
    const source = redisStatusSource(redis, prefix, () => Promise.resolve({}), {
      atRest: rules,
      onRefused: (reason) => refused.push(reason),
    });
    expect((await source.replicas()).map((f) => f.replica)).toEqual(['replica-a']);
    expect(refused).toEqual(['clear']);
    await stop();
  });
});
