import type { Operation } from '../contract/operations.js';
import type { RequestLogger } from '../observability/logger.js';
import {
  RegistryUnavailable,
  type FramingMismatch,
  type FramingMismatchKind,
  type ReadValue,
} from '../producers/value-codec.js';
import { retry, type Backoff } from '../retry.js';

/** What `decodeWhenRegistryAnswers` depends on. */
export interface DecodeDeps {
  /** The request value as JSON, with its framing id's mismatch if any (ValueCodec.readRequest). */
  decodeValue(value: Buffer): Promise<ReadValue>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** Told of each request read despite a framing id that does not describe it. */
  onFramingMismatch?(operation: Operation, mismatch: FramingMismatch, log: RequestLogger): void;
}

/**
 * The waits for the registry: 250 ms doubling up to 10 s, for as long as it takes, with full
 * jitter so that the requests waiting together do not call the registry together.
 */
const REGISTRY_WAIT: Backoff = { firstDelayMs: 250, maxDelayMs: 10_000, jitter: 'full' };

export type Decoded =
  { ok: true; value: unknown; mismatch?: FramingMismatch } | { ok: false; error: unknown } | 'aborted';

/**
 * Decodes a request value, waiting while the schema registry is unreachable: a registry outage
 * is an infrastructure fault and must not turn valid requests into dead letters. The message
 * stays where it is (key order holds) and is decoded once the registry answers; revocation or
 * shutdown aborts the wait. Any other decoding error is the message's and is returned.
 */
export async function decodeWhenRegistryAnswers(
  deps: DecodeDeps,
  value: Buffer,
  signal: AbortSignal,
  log: RequestLogger,
): Promise<Decoded> {
  // Only an unreachable registry is thrown, to be tried again; the message's own error is returned.
  const decode = async (): Promise<Decoded> => {
    try {
      return { ok: true, ...(await deps.decodeValue(value)) };
    } catch (error) {
      if (error instanceof RegistryUnavailable) throw error;
      return { ok: false, error };
    }
  };
  try {
    return await retry(decode, {
      ...REGISTRY_WAIT,
      signal,
      sleep: (ms, aborting) => deps.sleep(ms, aborting),
      onRetry: (error, failures) => {
        if (failures === 1) log.warn({ err: error }, 'schema registry unreachable; the request waits for it');
      },
    });
  } catch (error) {
    if (signal.aborted) return 'aborted';
    throw error;
  }
}

/** How often each framing mismatch (kind and schema id) is logged again while it goes on. */
const MISMATCH_LOG_EVERY_MS = 60_000;
/** Schema ids whose last log time is kept; past it the oldest is forgotten (logged again). */
const MISMATCH_IDS_KEPT = 64;

/**
 * Counts each request read despite its framing id (`count`: a metric, labels bounded) and says
 * so in a warning: the first of each schema id and kind, then at most once a minute each, with
 * how many were read meanwhile. The request's coordinates only (topic, partition, offset of the
 * request logger), never its content.
 */
export function framingMismatchReporter(
  count: (operation: Operation, kind: FramingMismatchKind) => void,
  now: () => number = Date.now,
): NonNullable<DecodeDeps['onFramingMismatch']> {
  const seen = new Map<string, { loggedAt: number; since: number }>();
  return (operation, { schemaId, kind }, log) => {
    count(operation, kind);
    const key = `${kind}:${schemaId}`;
    const last = seen.get(key);
    if (last && now() - last.loggedAt < MISMATCH_LOG_EVERY_MS) {
      last.since += 1;
      return;
    }
    seen.delete(key);
    if (seen.size >= MISMATCH_IDS_KEPT) seen.delete(seen.keys().next().value as string);
    seen.set(key, { loggedAt: now(), since: 0 });
    log.warn(
      { schemaId, framing: kind, operation, readSinceLastLog: last?.since ?? 0 },
      kind === 'unknown'
        ? 'request framed with a schema id the registry does not know; read as JSON and checked against the request schema'
        : 'request framed with a schema id that names a schema it does not match (another subject’s, or a stale id); read as JSON and checked against the request schema',
    );
  };
}
