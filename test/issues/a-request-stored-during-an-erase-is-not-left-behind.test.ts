/**
 * Issue 50, finding 4: erase raced a store. A request for the same person stored while erase
 * scanned Kafka stayed in Redis with no index entry: erase had read the index (SMEMBERS), the
 * store added a value and an index entry, and erase then deleted the whole index. Erase
 * reported 0 left, and a second erase found nothing.
 *
 * Erase now marks the person as being erased before it reads anything; the stores write no
 * value of a request naming a marked person (the outcome is still published, only not kept,
 * and counted); the removal reads the index and deletes in one step after the scan; the mark
 * is removed at the end. The race is made deterministic by storing while the erase's Kafka
 * consumer connects. On the real broker, registry, Redis and sandbox.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { markErasing } from '../../src/audit/erase-redis.js';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor, plateFor } from '../../src/sandbox/index.js';
import {
  eraseWithHook,
  redisKeysOf,
  storePaidOutcome,
  storePendingSearch,
  testAtRest,
  topicsForTest,
} from '../helpers/erase.js';
import { publish, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});

const INDEX_KEY = randomBytes(32).toString('base64');

describe('a request stored during an erase is not left behind (issue 50, finding 4)', () => {
  it('values of the person stored while erase scans Kafka are not kept, and nothing of theirs is left', async () => {
    const person = { kind: 'tax-id', value: cpfFor('happy', 50_401) } as const;
    const prefix = testPrefix('erase-race');
    const names = topicNames(prefix);
    await topicsForTest(stack, [names.request('lawsuits-summary'), names.audit]);
    await publish(stack.kafka, names.request('lawsuits-summary'), [
      { key: person.value, value: { requestId: 'before-1', params: { taxId: person.value } } },
    ]);
    const atRest = testAtRest(INDEX_KEY);
    const keys = redisKeysOf(prefix, atRest);
    stack.onCleanup(async () => {
      const left = await redis.keys(`*${prefix}*`);
      if (left.length > 0) await redis.del(...left);
    });
    await storePaidOutcome(redis, prefix, atRest, {
      requestId: 'before-1',
      operation: 'lawsuits-summary',
      subjects: [person],
    });

    const notStored: string[] = [];
    const run = await eraseWithHook(prefix, INDEX_KEY, { taxId: person.value, confirm: true }, async () => {
      // Requests of the same person, answered while the erase scans: one naming them in its
      // params, one vehicle search keyed by their tax id.
      await storePaidOutcome(
        redis,
        prefix,
        atRest,
        { requestId: 'during-1', operation: 'lawsuits-summary', subjects: [person] },
        () => notStored.push('paid-outcome'),
      );
      await storePendingSearch(redis, prefix, atRest, { requestId: 'during-2', key: person.value }, () =>
        notStored.push('pending-search'),
      );
    });

    expect(run.error).toBeUndefined();
    expect(run.hook).toEqual({ runs: 1 });
    // Nothing of the person is left in Redis: neither what was stored before, nor what came
    // while the erase ran.
    expect(await redis.exists(keys.paid('before-1'), keys.paid('during-1'))).toBe(0);
    expect(await redis.hexists(keys.searches, 'during-2')).toBe(0);
    expect(await redis.zscore(keys.due, 'during-2')).toBeNull();
    expect(await redis.exists(keys.paidIndex(person), keys.pendingIndex(person))).toBe(0);
    expect(notStored).toEqual(['paid-outcome', 'pending-search']);
    expect(run.summary?.after).toEqual({ paidOutcomes: [], pendingSearches: [] });
    expect(run.summary?.event.erased).toEqual({ paidOutcomes: 1, pendingSearches: 0 });

    // The mark ends with the erase: a request of the person answered afterwards is kept again.
    await storePaidOutcome(redis, prefix, atRest, {
      requestId: 'after-1',
      operation: 'lawsuits-summary',
      subjects: [person],
    });
    expect(await redis.exists(keys.paid('after-1'))).toBe(1);
    expect(await redis.smembers(keys.paidIndex(person))).toEqual(['after-1']);
  });

  it('the service answers a request naming a person being erased, and keeps nothing of it (counted)', async () => {
    const person = cpfFor('happy', 50_402);
    const plate = plateFor('async-sucessful', 50_403);
    const { prefix, collector, admin } = await stack.start('erase-marked', {
      env: { REDIS_INDEX_KEY: INDEX_KEY, VEHICLE_SEARCH_POLL_MS: '600000' },
    });
    const atRest = testAtRest(INDEX_KEY);
    const keys = redisKeysOf(prefix, atRest);
    const subject = { kind: 'tax-id', value: person } as const;
    const unmark = await markErasing(redis, prefix, atRest.index.digest(subject));
    stack.onCleanup(unmark);
    const names = topicNames(prefix);
    await publish(stack.kafka, names.request('lawsuits-summary'), [
      { key: person, value: { requestId: 'marked-1', params: { taxId: person } } },
    ]);
    // Named in its metadata only: a vehicle search for someone's plate, on the person's behalf.
    await publish(stack.kafka, names.request('vehicle-async'), [
      {
        key: plate,
        value: { requestId: 'marked-2', params: { licensePlate: plate }, metadata: { client: person } },
      },
    ]);
    await collector.waitFor(() => collector.results().length === 2, 60_000, 'both results');
    expect(
      collector
        .results()
        .map((r) => [r.value.requestId, r.value.status])
        .sort(),
    ).toEqual([
      ['marked-1', 'ok'],
      ['marked-2', 'accepted'],
    ]);
    expect(await redis.exists(keys.paid('marked-1'), keys.paid('marked-2'))).toBe(0);
    expect(await redis.hexists(keys.searches, 'marked-2')).toBe(0);
    expect(await redis.exists(keys.paidIndex(subject), keys.pendingIndex(subject))).toBe(0);
    const metrics = await (await admin('/metrics')).text();
    expect(metrics).toMatch(/^verification_redis_values_not_stored_total\{store="paid-outcome"\} 2$/m);
    expect(metrics).toMatch(/^verification_redis_values_not_stored_total\{store="pending-search"\} 1$/m);
  });
});
