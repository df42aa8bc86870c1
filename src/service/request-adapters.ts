import type { Operation } from '../contract/operations.js';
import { parseParams, type ParamsOf } from '../contract/params.js';
import type { ValueCodec } from '../producers/value-codec.js';

/** The per-request functions the runtime is handed (ProcessDeps): the shapes it expects. */

export function decodeWith(codec: ValueCodec): (value: Buffer) => Promise<unknown> {
  return (value) => codec.decode(value);
}

/** The contract's params check, without the issue list the runtime does not use. */
export function parseRequestParams<O extends Operation>(
  operation: O,
  params: unknown,
): { ok: true; value: ParamsOf<O> } | { ok: false; message: string } {
  const parsed = parseParams(operation, params);
  return parsed.ok ? { ok: true, value: parsed.params } : { ok: false, message: parsed.message };
}

/** Waits ms, or rejects as soon as the signal aborts (shutdown, revocation) with its reason. */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
