/**
 * patches/kafkajs+2.2.4+013+request-queue-idle-timers.patch: kafkajs's request queue arms its
 * timers only while a request waits, is throttled or is in flight. Unpatched, every broker
 * connection woke the process every 1 ms (the pending-request check, kafkajs#1751) and every
 * 100 ms (the request-timeout check) for as long as it was open.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it, vi } from 'vitest';

interface Queue {
  pending: unknown[];
  inflight: Map<number, unknown>;
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  requestTimeoutIntervalId: NodeJS.Timeout | null | undefined;
  scheduleCheckPendingRequests(): void;
  scheduleRequestTimeoutCheck(): void;
  sendSocketRequest(request: unknown): void;
  fulfillRequest(response: { correlationId: number; payload: Buffer; size: number }): void;
  destroy(): void;
}

const RequestQueue = createRequire(import.meta.url)('kafkajs/src/network/requestQueue/index.js') as new (
  options: Record<string, unknown>,
) => Queue;

const silent = {
  debug: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  info: () => undefined,
};

function queue(enforceRequestTimeout = false, isConnected = () => true, requestTimeout = 3_000): Queue {
  return new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout,
    enforceRequestTimeout,
    isConnected,
    clientId: 'test',
    broker: '127.0.0.1:9092',
    logger: silent,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('kafkajs request queue (patched)', () => {
  it('arms no timer when nothing is pending and nothing throttled', () => {
    const q = queue();
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).toBeNull();
  });

  it('still checks again while requests are pending', () => {
    const q = queue();
    q.pending.push({});
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    q.destroy();
  });

  it('still checks again when a throttle ends, even with nothing pending yet', () => {
    vi.useFakeTimers();
    const q = queue();
    q.throttledUntil = Date.now() + 50;
    q.scheduleCheckPendingRequests();
    expect(q.throttleCheckTimeoutId).not.toBeNull();
    vi.advanceTimersByTime(60);
    // The check ran once the throttle ended and, the queue being empty, armed nothing more.
    expect(q.throttleCheckTimeoutId).toBeNull();
  });
});

/** A request as kafkajs's SocketRequest looks to the queue: in flight once sent. */
function request(q: Queue, correlationId: number, requestTimeout: number) {
  const sent = {
    correlationId,
    expectResponse: true,
    sentAt: 0,
    requestTimeout,
    timeoutRequest: vi.fn(() => q.inflight.delete(correlationId)),
    completed: vi.fn(),
    send() {
      sent.sentAt = Date.now();
      q.inflight.set(correlationId, sent);
    },
  };
  return sent;
}

describe('kafkajs request-timeout check (patched)', () => {
  it('arms no timer on a connection with nothing in flight', () => {
    const q = queue(true);
    q.scheduleRequestTimeoutCheck();
    expect(q.requestTimeoutIntervalId).toBeNull();
  });

  it('times a request out as before, then stops checking once nothing is in flight', () => {
    vi.useFakeTimers();
    const q = queue(true);
    q.scheduleRequestTimeoutCheck();
    const slow = request(q, 1, 1_000);
    q.sendSocketRequest(slow);
    expect(q.requestTimeoutIntervalId).not.toBeNull();
    vi.advanceTimersByTime(900);
    expect(slow.timeoutRequest).not.toHaveBeenCalled();
    vi.advanceTimersByTime(200);
    expect(slow.timeoutRequest).toHaveBeenCalledOnce();
    expect(q.requestTimeoutIntervalId).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('stops checking once the last response arrives, and starts again with the next request', () => {
    vi.useFakeTimers();
    const q = queue(true);
    q.scheduleRequestTimeoutCheck();
    q.sendSocketRequest(request(q, 1, 30_000));
    q.fulfillRequest({ correlationId: 1, payload: Buffer.alloc(0), size: 0 });
    vi.advanceTimersByTime(100);
    expect(vi.getTimerCount()).toBe(0);
    const next = request(q, 2, 500);
    q.sendSocketRequest(next);
    vi.advanceTimersByTime(600);
    expect(next.timeoutRequest).toHaveBeenCalledOnce();
  });

  it('checks a request under the default 30 s timeout once a second, and times it out within a second of it', () => {
    vi.useFakeTimers();
    const isConnected = vi.fn(() => true);
    const q = queue(true, isConnected, 30_000);
    q.scheduleRequestTimeoutCheck();
    const hung = request(q, 1, 30_000);
    q.sendSocketRequest(hung);
    vi.advanceTimersByTime(10_000);
    expect(isConnected).toHaveBeenCalledTimes(10);
    vi.advanceTimersByTime(19_999);
    expect(hung.timeoutRequest).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1_001);
    expect(hung.timeoutRequest).toHaveBeenCalledOnce();
  });

  it('arms nothing when request timeouts are not enforced', () => {
    const q = queue(false);
    q.scheduleRequestTimeoutCheck();
    q.sendSocketRequest(request(q, 1, 1_000));
    expect(q.requestTimeoutIntervalId).toBeNull();
  });
});
