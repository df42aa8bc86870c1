import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 (unmaintained) re-arms a timer in every connection's request queue after each
 * check, even when nothing is pending and nothing throttled: `throttledUntil` is -1, so the delay
 * is negative and Node runs it after 1 ms, forever (tulios/kafkajs#1556, #1704, #1751; the fixes,
 * #1667 and #1768, were never released). That loop, in every broker connection of the consumer,
 * the admin and each partition's producer, was most of an idle service's CPU. The check is only
 * needed while requests wait: push() schedules it when one is queued, a response runs it, and a
 * throttle still schedules it; so with an empty queue and no throttle, nothing is scheduled.
 */
interface RequestQueueInternals {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  scheduleCheckPendingRequests(this: RequestQueueInternals): void;
}

let patched = false;

export function stopIdleRequestQueueLoop(): void {
  if (patched) return;
  const required: unknown = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js');
  const proto =
    typeof required === 'function'
      ? (required.prototype as Partial<RequestQueueInternals> | undefined)
      : undefined;
  const original = proto?.scheduleCheckPendingRequests;
  if (!proto || typeof original !== 'function') {
    throw new Error(
      'kafkajs internals changed: RequestQueue#scheduleCheckPendingRequests not found; revisit src/consumers/kafkajs-request-queue.ts',
    );
  }
  proto.scheduleCheckPendingRequests = function scheduleCheckPendingRequests() {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    original.call(this);
  };
  patched = true;
}
