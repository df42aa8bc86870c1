import { OPERATIONS, type Operation } from '../contract/operations.js';
import { ConfigError } from '../errors.js';
import { createOperationLimiter, type ManagedOperationLimiter } from './operation-limiter.js';
import { createMemoryQuotaStore, type QuotaStore } from './quota-store.js';
import { createRedisQuotaStore } from './redis-quota-store.js';
import { quotaShape, validateLanes, validateMargin, validateSettings } from './settings.js';
import type { LimiterDeps, Limiters, SpendCapListener } from './types.js';

export const DEFAULT_RATE_MARGIN = 0.035;

const preciseNow = (): number => performance.timeOrigin + performance.now();

/**
 * One limiter per operation. With `redis`, every replica using the same keyPrefix shares each
 * operation's rate, backoff and spend cap; without it they hold for this process only.
 */
export function createLimiters(deps: LimiterDeps): Limiters {
  validateSettings(deps.settings);
  if (deps.keyPrefix.length === 0) throw new ConfigError('limits.keyPrefix', 'must not be empty');
  const margin = deps.rateMargin ?? DEFAULT_RATE_MARGIN;
  validateMargin(margin);
  if (deps.lanes) validateLanes(deps.lanes);
  const now = deps.now ?? preciseNow;
  const listeners: SpendCapListener[] = [];

  const onSpendCap = (operation: Operation, resumeAt: number): void => {
    for (const listener of listeners) {
      try {
        listener(operation, resumeAt);
      } catch (error) {
        deps.logger.error({ err: error, operation }, 'spend-cap listener failed');
      }
    }
  };

  const storeFor = (operation: Operation): QuotaStore => {
    const { ratePerSecond, spendCapPerHour } = deps.settings[operation];
    const quota = { ...quotaShape(ratePerSecond, margin), spendCapPerHour };
    return deps.redis
      ? createRedisQuotaStore({ ...quota, redis: deps.redis, key: `${deps.keyPrefix}:${operation}`, now })
      : createMemoryQuotaStore(quota, now);
  };

  const limiters = new Map<Operation, ManagedOperationLimiter>(
    OPERATIONS.map((operation) => [
      operation,
      createOperationLimiter({
        operation,
        settings: deps.settings[operation],
        store: storeFor(operation),
        shared: deps.redis !== undefined,
        logger: deps.logger,
        now,
        // Half the room the margin gives each window (quotaShape), checked on waking and again
        // as the request is written (Slot.confirm): the other half is for the way from our
        // socket to the vendor's count (its own event loop).
        lateToleranceMs: Math.max(2, margin * 500),
        onSpendCap,
        lanes: deps.lanes,
      }),
    ]),
  );

  return {
    get(operation) {
      const limiter = limiters.get(operation);
      if (!limiter) throw new Error(`no limiter for operation ${operation}`);
      return limiter;
    },
    on(_event, listener) {
      listeners.push(listener);
    },
    async close() {
      await Promise.all([...limiters.values()].map((limiter) => limiter.close()));
    },
  };
}
