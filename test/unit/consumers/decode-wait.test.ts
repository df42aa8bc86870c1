import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { decodeWhenRegistryAnswers } from '../../../src/consumers/decode-wait.js';
import { InvalidRequestError } from '../../../src/errors.js';
import { RegistryUnavailable } from '../../../src/producers/value-codec.js';

const log = pino({ level: 'silent' });
const noSleep = (): Promise<void> => Promise.resolve();

describe('decodeWhenRegistryAnswers', () => {
  it('tries again while the registry is unavailable, then returns the value', async () => {
    let calls = 0;
    const decodeValue = (): Promise<unknown> => {
      calls += 1;
      return calls < 4 ? Promise.reject(new RegistryUnavailable('down')) : Promise.resolve({ ok: 1 });
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
