import { describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../src/contract/operations.js';
import type { ParamsOf } from '../../../src/contract/params.js';
import { AppError } from '../../../src/errors.js';
import { SlotMissedError } from '../../../src/limits/errors.js';
import type { Handler, Handlers } from '../../../src/handlers/types.js';
import { instrumentHandlers, instrumentProducer } from '../../../src/observability/instrument.js';
import { createMetrics } from '../../../src/observability/metrics.js';
import type { TransactionalProducer } from '../../../src/consumers/commit-loop.js';

const offsets = [{ topic: 't', partition: 0, offset: '1' }];
const member = { groupId: 'g', generationId: 1, memberId: 'm' };

function producerFailingWith(error: unknown): TransactionalProducer {
  return {
    connect: () => Promise.resolve(),
    close: () => Promise.resolve(),
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
    const fencedError = Object.assign(new Error('fenced'), { type: 'PRODUCER_FENCED' });
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
