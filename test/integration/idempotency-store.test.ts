import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { DataCipher } from '../../src/at-rest/cipher.js';
import { SubjectIndex } from '../../src/at-rest/subjects.js';
import type { AtRest } from '../../src/config-at-rest.js';
import {
  redisIdempotencyStore,
  requestKeys,
  type Claim,
  type Reservation,
} from '../../src/requests/idempotency.js';
import { countCalls } from '../helpers/count-calls.js';

// Both ways the service may talk to Redis: the scripts once went wrong only when auto-pipelined.
describe.each([false, true])('redis idempotency store (auto-pipelining %s)', (enableAutoPipelining) => {
  const redis = new Redis(inject('redisUrl'), { enableAutoPipelining });
  const prefix = `test-${randomUUID()}`;
  const settings = { keyPrefix: prefix, windowSeconds: 60, reservationTtlMs: 30_000 };
  const store = redisIdempotencyStore(redis, settings);
  const paid = {
    paramsHash: 'h',
    outcome: { status: 'ok' as const, response: { n: 1 }, vendor: { httpStatus: 200 } },
  };
  afterAll(async () => {
    await redis.quit();
  });

  const reservationOf = (claim: Claim): Reservation | undefined =>
    claim && 'reservation' in claim ? claim.reservation : undefined;

  it('refuses a second reservation while the first is held', async () => {
    const id = randomUUID();
    const first = reservationOf(await store.claim('lawsuits-summary', id));
    expect(first).toBeDefined();
    expect(await store.claim('lawsuits-summary', id)).toBeUndefined();
    await first?.release();
    expect(reservationOf(await store.claim('lawsuits-summary', id))).toBeDefined();
  });

  it('stores the outcome and frees the reservation in one step, after which every claim gets it', async () => {
    const id = randomUUID();
    const reservation = reservationOf(await store.claim('lawsuits-summary', id));
    await reservation?.complete(paid);
    expect(await store.claim('lawsuits-summary', id)).toEqual({ paid });
    expect(await store.claim('lawsuits-summary', id)).toEqual({ paid });
  });

  it('keeps one record per requestId, whatever the operation, with the operation and message that paid', async () => {
    const id = randomUUID();
    const full = {
      ...paid,
      operation: 'lawsuits-summary' as const,
      origin: { topic: 't', partition: 3, offset: '41' },
    };
    const reservation = reservationOf(await store.claim('lawsuits-summary', id));
    expect(await store.claim('company-partners', id)).toBeUndefined();
    await reservation?.complete(full);
    await store.settle();
    const elsewhere = redisIdempotencyStore(redis, settings);
    expect(await elsewhere.claim('company-partners', id)).toEqual({ paid: full });
  });

  it('finds what a version keeping one record per operation paid or holds (a rolling upgrade)', async () => {
    const [stored, held] = [randomUUID(), randomUUID()];
    await redis.set(`${prefix}:paid:vehicle:${stored}`, JSON.stringify(paid));
    expect(await store.claim('vehicle', stored)).toEqual({ paid });
    await redis.set(`${prefix}:reserved:vehicle:${held}`, 'an older replica', 'PX', 30_000);
    expect(await store.claim('vehicle', held)).toBeUndefined();
    await redis.del(`${prefix}:reserved:vehicle:${held}`);
    expect(reservationOf(await store.claim('vehicle', held))).toBeDefined();
  });

  it('reads back a large outcome stored compressed', async () => {
    const id = randomUUID();
    const large = { ...paid, outcome: { ...paid.outcome, response: { image: 'x'.repeat(64 * 1024) } } };
    await reservationOf(await store.claim('lawsuits-summary', id))?.complete(large);
    expect(await store.claim('lawsuits-summary', id)).toEqual({ paid: large });
  });
  it('answers a copy here from memory while the outcome is being written, and settles once stored', async () => {
    const id = randomUUID();
    const reservation = reservationOf(await store.claim('lawsuits-summary', id));
    const writing = reservation?.complete(paid);
    // Not awaited, as the request path does: a copy in this process is answered at once.
    expect(await store.claim('lawsuits-summary', id)).toEqual({ paid });
    await store.settle();
    // Stored: another process (a store without this one's memory) reads it from Redis.
    const elsewhere = redisIdempotencyStore(redis, { ...settings, keyPrefix: prefix });
    expect(await elsewhere.claim('lawsuits-summary', id)).toEqual({ paid });
    await writing;
  });

  it('sends the claims made together as one script run, each answered for its own requestId', async () => {
    const [paidId, heldId, freeId] = [randomUUID(), randomUUID(), randomUUID()];
    await reservationOf(await store.claim('lawsuits-summary', paidId))?.complete(paid);
    const elsewhere = redisIdempotencyStore(redis, settings);
    const held = reservationOf(await elsewhere.claim('lawsuits-summary', heldId));
    const sent = countCalls(redis, 'evalshaBuffer');
    const fresh = redisIdempotencyStore(redis, settings);
    const [a, b, c] = await Promise.all([
      fresh.claim('lawsuits-summary', paidId),
      fresh.claim('lawsuits-summary', heldId),
      fresh.claim('lawsuits-summary', freeId),
    ]);
    expect(sent.count()).toBe(1);
    sent.restore();
    expect(a).toEqual({ paid });
    expect(b).toBeUndefined();
    expect(reservationOf(c)).toBeDefined();
    await held?.release();
    await reservationOf(c)?.release();
  });

  it('stores the outcomes completed in one turn of the event loop with one script run', async () => {
    const ids = [randomUUID(), randomUUID(), randomUUID()];
    const reservations: Reservation[] = [];
    for (const id of ids) {
      const reservation = reservationOf(await store.claim('lawsuits-summary', id));
      if (!reservation) throw new Error('expected a reservation');
      reservations.push(reservation);
    }
    const sent = countCalls(redis, 'evalshaBuffer');
    await Promise.all(
      reservations.map((reservation, i) => reservation.complete({ ...paid, paramsHash: `h${i}` })),
    );
    expect(sent.count()).toBe(1);
    sent.restore();
    const elsewhere = redisIdempotencyStore(redis, settings);
    for (const [i, id] of ids.entries())
      expect(await elsewhere.claim('lawsuits-summary', id)).toEqual({
        paid: { ...paid, paramsHash: `h${i}` },
      });
  });
});

describe('paid outcomes not sealed by this service (issue 50, finding 2)', () => {
  const redis = new Redis(inject('redisUrl'));
  afterAll(async () => {
    await redis.quit();
  });
  const material = randomBytes(32);
  const atRest = (clearValuesUntil?: number): AtRest => ({
    cipher: new DataCipher([{ id: 'k1', material }], 'REDIS_ENCRYPTION_KEYS'),
    index: new SubjectIndex(randomBytes(32).toString('base64')),
    ...(clearValuesUntil === undefined ? {} : { clearValuesUntil }),
  });
  const genuine = {
    paramsHash: 'h',
    outcome: { status: 'ok' as const, response: { from: 'the vendor' }, vendor: { httpStatus: 200 } },
  };
  // What a Redis writer plants: the params' hash right, the answer its own.
  const forged = JSON.stringify({
    paramsHash: 'h',
    operation: 'lawsuits-summary',
    outcome: { status: 'ok', response: { forged: true }, vendor: { httpStatus: 200 } },
  });
  const storeWith = (rules: AtRest, refused: string[]) => {
    const prefix = `test-${randomUUID()}`;
    const store = redisIdempotencyStore(redis, {
      keyPrefix: prefix,
      windowSeconds: 60,
      reservationTtlMs: 30_000,
      atRest: rules,
      onRefused: (reason) => refused.push(reason),
    });
    return { prefix, store };
  };

  it('refuses a paid outcome written in clear: the request gets a reservation to pay, never the value', async () => {
    const refused: string[] = [];
    const { prefix, store } = storeWith(atRest(), refused);
    const id = randomUUID();
    await redis.set(requestKeys(prefix, id).paid, forged, 'EX', 60);
    const claim = await store.claim('lawsuits-summary', id);
    expect(claim && 'paid' in claim ? claim.paid.outcome.response : undefined).toBeUndefined();
    const reservation = claim && 'reservation' in claim ? claim.reservation : undefined;
    expect(reservation).toBeDefined();
    expect(refused).toEqual(['clear']);
    // The call's outcome replaces the planted value, sealed.
    await reservation?.complete(genuine);
    await store.settle();
    expect(await store.claim('lawsuits-summary', id)).toEqual({ paid: genuine });
    const stored = (await redis.getBuffer(requestKeys(prefix, id).paid)) ?? Buffer.alloc(0);
    expect(stored[0]).toBe(0x00);
  });

  it('refuses one of an older per-operation key, and a sealed value that does not open (other bytes under the id)', async () => {
    const refused: string[] = [];
    const { prefix, store } = storeWith(atRest(), refused);
    const [older, altered] = [randomUUID(), randomUUID()];
    await redis.set(`${prefix}:paid:vehicle:${older}`, forged, 'EX', 60);
    const other = new DataCipher([{ id: 'k1', material: randomBytes(32) }], 'REDIS_ENCRYPTION_KEYS');
    const paidKey = requestKeys(prefix, altered).paid;
    await redis.set(paidKey, other.seal(forged, paidKey), 'EX', 60);
    for (const id of [older, altered]) {
      const claim = await store.claim('vehicle', id);
      expect(claim && 'reservation' in claim).toBe(true);
      if (claim && 'reservation' in claim) await claim.reservation.release();
    }
    expect(refused).toEqual(['clear', 'unopenable']);
  });

  it('reads a value in clear while REDIS_CLEAR_VALUES_UNTIL lasts, and refuses it after', async () => {
    const legacy = JSON.stringify(genuine);
    const within = storeWith(atRest(Date.now() + 60_000), []);
    const id = randomUUID();
    await redis.set(requestKeys(within.prefix, id).paid, legacy, 'EX', 60);
    expect(await within.store.claim('lawsuits-summary', id)).toEqual({ paid: genuine });
    const refused: string[] = [];
    const after = storeWith(atRest(Date.now() - 1), refused);
    await redis.set(requestKeys(after.prefix, id).paid, legacy, 'EX', 60);
    const claim = await after.store.claim('lawsuits-summary', id);
    expect(claim && 'reservation' in claim).toBe(true);
    expect(refused).toEqual(['clear']);
  });

  it('without encryption at rest (ALLOW_PLAINTEXT_REDIS), reads values in clear as before', async () => {
    const prefix = `test-${randomUUID()}`;
    const store = redisIdempotencyStore(redis, {
      keyPrefix: prefix,
      windowSeconds: 60,
      reservationTtlMs: 30_000,
    });
    const id = randomUUID();
    await redis.set(requestKeys(prefix, id).paid, JSON.stringify(genuine), 'EX', 60);
    expect(await store.claim('lawsuits-summary', id)).toEqual({ paid: genuine });
  });
});
