import type { Logger } from 'pino';

/**
 * Values read back from Redis that the service refuses to act on: whoever can write to Redis
 * must not be able to make a replica serve, publish or skip anything. Each refusal is counted
 * (verification_redis_values_refused_total{store,reason}) and logged with the store and the
 * reason only: never the Redis key nor the value, which may name a person.
 */
export const REFUSED_VALUE_STORES = [
  'paid-outcome',
  'pending-search',
  'heartbeat',
  'console-session',
] as const;
export type RefusedValueStore = (typeof REFUSED_VALUE_STORES)[number];

/**
 * `clear`: in clear where values are sealed (past REDIS_CLEAR_VALUES_UNTIL); `unopenable`:
 * sealed, but not with this service's keys (altered, moved, or sealed with other bytes);
 * `malformed`: not the shape this service writes.
 */
export const REFUSAL_REASONS = ['clear', 'unopenable', 'malformed'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** What a store calls when it refuses a value it read. */
export type OnRefused = (reason: RefusalReason) => void;

/** Counts and logs a store's refusals; `count` is the metric's. */
export function reportRefusals(
  store: RefusedValueStore,
  logger: Pick<Logger, 'warn'>,
  count: (store: RefusedValueStore, reason: RefusalReason) => void,
): OnRefused {
  return (reason) => {
    count(store, reason);
    logger.warn({ store, reason }, 'a value read from Redis was refused');
  };
}

/**
 * Stores that leave a value unwritten while a subject its request names is being erased
 * (erase's marker): the outcome is still published, only not kept. Counted
 * (verification_redis_values_not_stored_total{store}) and logged with the store only.
 */
export const NOT_STORED_STORES = ['paid-outcome', 'pending-search'] as const;
export type NotStoredStore = (typeof NOT_STORED_STORES)[number];

/** Counts and logs the values a store left unwritten; `count` is the metric's. */
export function reportNotStored(
  store: NotStoredStore,
  logger: Pick<Logger, 'info'>,
  count: (store: NotStoredStore) => void,
): () => void {
  return () => {
    count(store);
    logger.info({ store }, 'a value was not stored in Redis: a person it names is being erased');
  };
}
