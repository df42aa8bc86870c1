import { createRequire } from 'node:module';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { stopIdleRequestQueueLoop } from '../../../src/consumers/kafkajs-request-queue.js';

interface Queue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  scheduleCheckPendingRequests(): void;
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

function queue(): Queue {
  return new RequestQueue({
    maxInFlightRequests: null,
    requestTimeout: 30_000,
    enforceRequestTimeout: false,
    clientId: 'test',
    broker: '127.0.0.1:9092',
    logger: silent,
  });
}

describe('kafkajs request queue after stopIdleRequestQueueLoop', () => {
  beforeAll(() => {
    stopIdleRequestQueueLoop();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

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
