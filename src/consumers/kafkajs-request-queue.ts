import { createRequire } from 'node:module';

/**
 * Two timers kafkajs 2.2.4 (unmaintained) runs in every broker connection's request queue,
 * whether or not anything waits: in the consumer's, the admin's and the producer's connections
 * they were most of an idle service's wakeups. Patched on the prototype, the way
 * bottleneck-yield.ts patches bottleneck; start-up fails if the internals move.
 *
 * 1. The pending-request check re-arms itself after each run, even when nothing is pending and
 *    nothing throttled: `throttledUntil` is -1, so the delay is negative and Node runs it after
 *    1 ms, forever (tulios/kafkajs#1556, #1704, #1751; the fixes, #1667 and #1768, were never
 *    released). It is only needed while requests wait: push() schedules it when one is queued,
 *    a response runs it, and a throttle still schedules it.
 * 2. The request-timeout check runs every 100 ms (min(requestTimeout, 100)) from the moment the
 *    connection is up until it is closed, to time out requests in flight. With none in flight it
 *    has nothing to do: it now runs from a request's sending until nothing is in flight. And as
 *    the consumer's fetch long-poll is nearly always in flight, its period is a thirtieth of the
 *    request timeout (1 s at kafkajs's default 30 s), never under the original's: a request
 *    times out at most 3.3 % late instead of 100 ms late.
 */
interface SocketRequestInternals {
  sentAt: number;
  requestTimeout: number;
  timeoutRequest(): void;
}

interface RequestQueueInternals {
  pending: unknown[];
  inflight: Map<number, SocketRequestInternals>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  requestTimeoutIntervalId: NodeJS.Timeout | null | undefined;
  requestTimeout: number;
  enforceRequestTimeout: boolean;
  isConnected(): boolean;
  destroy(): void;
  scheduleCheckPendingRequests(this: RequestQueueInternals): void;
  scheduleRequestTimeoutCheck(this: RequestQueueInternals): void;
  sendSocketRequest(this: RequestQueueInternals, socketRequest: unknown): void;
}

let patched = false;

export function stopIdleRequestQueueLoop(): void {
  if (patched) return;
  const required: unknown = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js');
  const proto =
    typeof required === 'function'
      ? (required.prototype as Partial<RequestQueueInternals> | undefined)
      : undefined;
  const { scheduleCheckPendingRequests, scheduleRequestTimeoutCheck, sendSocketRequest } = proto ?? {};
  if (
    !proto ||
    typeof scheduleCheckPendingRequests !== 'function' ||
    typeof scheduleRequestTimeoutCheck !== 'function' ||
    typeof sendSocketRequest !== 'function' ||
    typeof proto.destroy !== 'function'
  ) {
    throw new Error(
      'kafkajs internals changed: RequestQueue#scheduleCheckPendingRequests, #scheduleRequestTimeoutCheck or #sendSocketRequest not found; revisit src/consumers/kafkajs-request-queue.ts',
    );
  }
  proto.scheduleCheckPendingRequests = function checkOnlyWhileWaiting() {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    scheduleCheckPendingRequests.call(this);
  };
  // Called when the connection is up: what the original did before arming its interval.
  proto.scheduleRequestTimeoutCheck = function timeoutCheckOnlyWhileInFlight() {
    this.destroy();
    this.requestTimeoutIntervalId = null;
    watchInFlight(this);
  };
  proto.sendSocketRequest = function sendAndWatch(socketRequest) {
    sendSocketRequest.call(this, socketRequest);
    watchInFlight(this);
  };
  patched = true;
}

/** The original request-timeout check, armed only while requests are in flight. */
function watchInFlight(queue: RequestQueueInternals): void {
  if (!queue.enforceRequestTimeout || queue.requestTimeoutIntervalId || queue.inflight.size === 0) return;
  const stop = (): void => {
    clearInterval(queue.requestTimeoutIntervalId ?? undefined);
    queue.requestTimeoutIntervalId = null;
  };
  queue.requestTimeoutIntervalId = setInterval(
    () => {
      queue.inflight.forEach((request) => {
        if (Date.now() - request.sentAt > request.requestTimeout) request.timeoutRequest();
      });
      if (!queue.isConnected()) {
        queue.destroy();
        stop();
      } else if (queue.inflight.size === 0) stop();
    },
    Math.max(Math.min(queue.requestTimeout, 100), Math.floor(queue.requestTimeout / 30)),
  );
}
