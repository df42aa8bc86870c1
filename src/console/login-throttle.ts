import { createHmac, type KeyObject } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Wrong console tokens allowed from one address within a window; past them that address's
 * logins are refused (429, Retry-After) without the token being compared, until the window
 * that began with its first wrong token ends. A right token clears the address's count.
 *
 * Kept in Redis when there is one (a restart does not clear the count; replicas share it), by a
 * keyed hash (HMAC-SHA256) of the address: an address is personal data, and an unkeyed hash of
 * an IPv4 address is undone by hashing all four billion. The key is the deployment's secret
 * (index.ts), never stored. Else in the replica's memory. Through `kubectl port-forward` every
 * login comes from the pod's loopback, so there the count is everyone's: ten wrong tokens hold
 * every new login off for the rest of the window, while open sessions go on.
 */
export interface LoginThrottleLimits {
  attempts: number;
  windowSeconds: number;
}

export const LOGIN_THROTTLE: LoginThrottleLimits = { attempts: 10, windowSeconds: 15 * 60 };

export interface LoginThrottle {
  /** Seconds until this address may try again; 0 while it may. */
  retryAfterSeconds(address: string): Promise<number>;
  /** Counts a wrong token; true when this one used the address's last attempt. */
  failed(address: string): Promise<boolean>;
  succeeded(address: string): Promise<void>;
}

export function createLoginThrottle(
  key: KeyObject,
  limits: LoginThrottleLimits = LOGIN_THROTTLE,
  shared?: { redis: Redis; prefix: string },
): LoginThrottle {
  const options = { points: limits.attempts, duration: limits.windowSeconds };
  const wrong = shared
    ? new RateLimiterRedis({
        ...options,
        storeClient: shared.redis,
        keyPrefix: `${shared.prefix}:console:login`,
      })
    : new RateLimiterMemory({ ...options, keyPrefix: 'console-login' });
  const keyOf = (address: string): string => createHmac('sha256', key).update(address).digest('base64url');
  return {
    async retryAfterSeconds(address) {
      const state = await wrong.get(keyOf(address));
      // An expired count may outlive its window until its timer deletes it: it holds nothing.
      if (state === null || state.consumedPoints < limits.attempts || state.msBeforeNext <= 0) return 0;
      return Math.max(1, Math.ceil(state.msBeforeNext / 1000));
    },
    async failed(address) {
      try {
        const state = await wrong.consume(keyOf(address));
        return state.remainingPoints === 0;
      } catch (error) {
        // Over the limit already (a login raced past the check): it stays refused.
        if (error instanceof RateLimiterRes) return false;
        throw error;
      }
    },
    async succeeded(address) {
      await wrong.delete(keyOf(address));
    },
  };
}
