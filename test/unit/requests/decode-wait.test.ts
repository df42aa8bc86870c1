import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { decodeWhenRegistryAnswers, framingMismatchReporter } from '../../../src/requests/decode-wait.js';
import { InvalidRequestError } from '../../../src/errors.js';
import { RegistryUnavailable, type ReadValue } from '../../../src/producers/value-codec.js';

const log = pino({ level: 'silent' });
const noSleep = (): Promise<void> => Promise.resolve();

describe('decodeWhenRegistryAnswers', () => {
  it('tries again while the registry is unavailable, then returns the value', async () => {
    let calls = 0;
    const decodeValue = (): Promise<ReadValue> => {
      calls += 1;
      return calls < 4
        ? Promise.reject(new RegistryUnavailable('down'))
        : Promise.resolve({ value: { ok: 1 } });
    };
    const decoded = await decodeWhenRegistryAnswers(
      { decodeValue, sleep: noSleep },
      Buffer.from('x'),
      new AbortController().signal,
      log,
    );
    expect(decoded).toEqual({ ok: true, value: { ok: 1 } });
    expect(calls).toBe(4);
  });

  it('returns the message’s own decoding error at once', async () => {
    const error = new InvalidRequestError('schema id 9 is unknown to the registry');
    const decoded = await decodeWhenRegistryAnswers(
      { decodeValue: () => Promise.reject(error), sleep: noSleep },
      Buffer.from('x'),
      new AbortController().signal,
      log,
    );
    expect(decoded).toEqual({ ok: false, error });
  });

  it('gives up waiting when the signal aborts (revocation, shutdown)', async () => {
    const controller = new AbortController();
    const sleep = (_ms: number, signal: AbortSignal): Promise<void> => {
      controller.abort(new Error('revoked'));
      return Promise.reject(signal.reason as Error);
    };
    const decoded = await decodeWhenRegistryAnswers(
      { decodeValue: () => Promise.reject(new RegistryUnavailable('down')), sleep },
      Buffer.from('x'),
      controller.signal,
      log,
    );
    expect(decoded).toBe('aborted');
  });
});

describe('framingMismatchReporter', () => {
  it('counts every request read despite its framing id, and warns once a minute per id and kind', () => {
    let now = 0;
    const counted: string[] = [];
    const warnings: Record<string, unknown>[] = [];
    const log = {
      info: () => undefined,
      error: () => undefined,
      warn: (fields: Record<string, unknown>) => {
        warnings.push(fields);
      },
    } as unknown as Parameters<ReturnType<typeof framingMismatchReporter>>[2];
    const report = framingMismatchReporter(
      (operation, kind) => counted.push(`${operation}:${kind}`),
      () => now,
    );
    const foreign = { schemaId: 7, kind: 'foreign' as const };
    report('lawsuits-summary', foreign, log);
    report('lawsuits-summary', foreign, log);
    report('lawsuits-summary', { schemaId: 7, kind: 'unknown' }, log);
    now = 61_000;
    report('lawsuits-summary', foreign, log);

    expect(counted).toEqual([
      'lawsuits-summary:foreign',
      'lawsuits-summary:foreign',
      'lawsuits-summary:unknown',
      'lawsuits-summary:foreign',
    ]);
    expect(warnings).toEqual([
      { schemaId: 7, framing: 'foreign', operation: 'lawsuits-summary', readSinceLastLog: 0 },
      { schemaId: 7, framing: 'unknown', operation: 'lawsuits-summary', readSinceLastLog: 0 },
      { schemaId: 7, framing: 'foreign', operation: 'lawsuits-summary', readSinceLastLog: 1 },
    ]);
  });

  it('hands on the mismatch the codec found with the value', async () => {
    const mismatch = { schemaId: 7, kind: 'foreign' as const };
    const decoded = await decodeWhenRegistryAnswers(
      { decodeValue: () => Promise.resolve({ value: { ok: 1 }, mismatch }), sleep: noSleep },
      Buffer.from('x'),
      new AbortController().signal,
      log,
    );
    expect(decoded).toEqual({ ok: true, value: { ok: 1 }, mismatch });
  });
});
