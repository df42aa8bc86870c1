import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../src/contract/operations.js';
import type { ParamsOf } from '../../../src/contract/params.js';
import { AppError } from '../../../src/errors.js';
import { SlotMissedError } from '../../../src/limits/errors.js';
import type { Handler, Handlers } from '../../../src/handlers/types.js';
import { CircuitBreaker } from '../../../src/requests/circuit-breaker.js';
import { instrumentHandlers, instrumentProducer, watchBreaker } from '../../../src/service/instrument.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { GroupHandle, TransactionalProducer } from '../../../src/consumers/transactional-producer.js';
import { createKafka } from '../../../src/kafka/client.js';

const offsets = [{ topic: 't', partition: 0, offset: '1' }];
const member: GroupHandle = {
  consumer: createKafka({ brokers: ['127.0.0.1:1'] }).consumer({ kafkaJS: { groupId: 'g' } }),
  owns: () => true,
};

function producerFailingWith(error: unknown): TransactionalProducer {
  return {
    connect: () => Promise.resolve(),
    close: () => Promise.resolve(),
    fence: () => Promise.resolve(),
    commit: () => Promise.reject(error instanceof Error ? error : new Error(String(error))),
  };
}

async function value(metrics: ReturnType<typeof createMetrics>, name: string): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return metric?.values.reduce((sum, v) => sum + v.value, 0) ?? Number.NaN;
}

/** Vendor attempts recorded (the histogram's count, all labels), as a scrape shows them. */
async function vendorCalls(metrics: ReturnType<typeof createMetrics>): Promise<number> {
  const text = await metrics.registry.getSingleMetricAsString('verification_vendor_call_seconds');
  return text
    .split('\n')
    .filter((line) => line.startsWith('verification_vendor_call_seconds_count'))
    .reduce((sum, line) => sum + Number(line.split(' ').pop()), 0);
}

describe('instrumentProducer', () => {
  it('counts a failed transaction as aborted, and a fenced one as fenced too', async () => {
    const metrics = createMetrics();
    const fencedError = Object.assign(new Error('fenced'), { code: KafkaJS.ErrorCodes.ERR_PRODUCER_FENCED });
    await expect(
      instrumentProducer(producerFailingWith(fencedError), metrics).commit([], offsets, member),
    ).rejects.toBe(fencedError);
    await expect(
      instrumentProducer(producerFailingWith(new Error('broker gone')), metrics).commit([], offsets, member),
    ).rejects.toThrow('broker gone');
    expect(await value(metrics, 'verification_transactions_aborted_total')).toBe(2);
    expect(await value(metrics, 'verification_producers_fenced_total')).toBe(1);
    expect(await value(metrics, 'verification_transactions_committed_total')).toBe(0);
  });
});

describe('instrumentHandlers', () => {
  it("keeps a handler's prepare step, so a selfie is still downloaded outside the limiter", () => {
    const prepare = (params: ParamsOf<'face-document-lookup'>) => Promise.resolve(params);
    const plain = (): Handler => () =>
      Promise.resolve({ status: 'ok' as const, response: {}, vendor: { httpStatus: 200 } });
    const handlers = Object.fromEntries(
      OPERATIONS.map((op) => [
        op,
        op === 'face-document-lookup' ? Object.assign(plain(), { prepare }) : plain(),
      ]),
    ) as unknown as Handlers;
    const instrumented = instrumentHandlers(handlers, createMetrics());
    expect(instrumented['face-document-lookup'].prepare).toBe(prepare);
    expect(instrumented['lawsuits-summary'].prepare).toBeUndefined();
  });

  it('records no vendor call for an attempt the limiter refused before it was sent', async () => {
    const failing = (error: Error): Handlers =>
      Object.fromEntries(OPERATIONS.map((op) => [op, () => Promise.reject(error)])) as unknown as Handlers;
    const metrics = createMetrics();
    const context = { requestId: 'r', signal: new AbortController().signal };
    const params: ParamsOf<'lawsuits-summary'> = { taxId: '52998224725' };
    const missed = new SlotMissedError();
    await expect(
      instrumentHandlers(failing(missed), metrics)['lawsuits-summary'](params, context),
    ).rejects.toBe(missed);
    expect(await vendorCalls(metrics)).toBe(0);
    const down = new AppError('upstream_unavailable', 'vendor answered 503', { retryable: true });
    await expect(
      instrumentHandlers(failing(down), metrics)['lawsuits-summary'](params, context),
    ).rejects.toBe(down);
    expect(await vendorCalls(metrics)).toBe(1);
  });
});

describe('watchBreaker', () => {
  it('counts a failed probe as a reopen, apart from the first opening', async () => {
    const metrics = createMetrics();
    const breaker = new CircuitBreaker({ failureThreshold: 1, cooldownMs: 5 });
    watchBreaker('vehicle', breaker, metrics);
    const transitions = async (): Promise<Record<string, number>> => {
      const metric = await metrics.registry.getSingleMetric('verification_breaker_transitions_total')?.get();
      return Object.fromEntries(
        (metric?.values ?? [])
          .filter((v) => v.labels.operation === 'vehicle')
          .map((v) => [String(v.labels.kind), v.value]),
      );
    };
    // Every series there from the start, at 0, for increase() to see the first event.
    expect(await transitions()).toEqual({ open: 0, reopen: 0, close: 0 });
    breaker.recordFailure();
    for (const expected of [
      { open: 1, reopen: 1, close: 0 },
      { open: 1, reopen: 2, close: 0 },
    ]) {
      expect(await breaker.acquire()).toBe(true); // the probe, once the cool-down is over
      breaker.recordFailure();
      expect(await transitions()).toEqual(expected);
    }
    expect(await breaker.acquire()).toBe(true);
    breaker.recordSuccess();
    expect(await transitions()).toEqual({ open: 1, reopen: 2, close: 1 });
    breaker.close();
  });

  it('starts every dead-letter series at 0, so that a first burst shows in increase()', async () => {
    const text = await createMetrics().registry.getSingleMetricAsString('verification_outcomes_total');
    expect(text).toContain(
      'verification_outcomes_total{operation="vehicle",kind="error",status="timeout"} 0',
    );
    expect(text.split('\n').filter((line) => line.includes('kind="error"'))).toHaveLength(70);
  });
});
