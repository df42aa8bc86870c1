import type { RequestLogger } from '../observability/logger.js';
import { RegistryUnavailable } from '../producers/value-codec.js';

/**
 * Decodes a request value, waiting while the schema registry is unreachable: a registry outage
 * is an infrastructure fault and must not turn valid requests into dead letters. The message
 * stays where it is (key order holds) and is decoded once the registry answers; revocation or
 * shutdown aborts the wait. Any other decoding error is the message's and is returned.
 */
export interface DecodeDeps {
  decodeValue(value: Buffer): Promise<unknown>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const FIRST_WAIT_MS = 250;
const LONGEST_WAIT_MS = 10_000;

export type Decoded = { ok: true; value: unknown } | { ok: false; error: unknown } | 'aborted';

export async function decodeWhenRegistryAnswers(
  deps: DecodeDeps,
  value: Buffer,
  signal: AbortSignal,
  log: RequestLogger,
): Promise<Decoded> {
  for (let failures = 0; ; failures += 1) {
    try {
      return { ok: true, value: await deps.decodeValue(value) };
    } catch (error) {
      if (!(error instanceof RegistryUnavailable)) return { ok: false, error };
      if (failures === 0) log.warn({ err: error }, 'schema registry unreachable; the request waits for it');
      // Full jitter: the requests waiting together do not call the registry together.
      const ceiling = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** failures);
      try {
        await deps.sleep(Math.floor(Math.random() * ceiling) + 1, signal);
      } catch (aborted) {
        if (signal.aborted) return 'aborted';
        throw aborted;
      }
    }
  }
}
