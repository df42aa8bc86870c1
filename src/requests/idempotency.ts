import { createHash, randomUUID } from 'node:crypto';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import type { Redis } from 'ioredis';
import type { OnRefused } from '../at-rest/refusals.js';
import { openStoredValue, sealForRedis } from '../at-rest/stored-values.js';
import type { AtRest } from '../config-at-rest.js';
import type { DataSubject } from '../at-rest/subjects.js';
import type { Origin } from '../contract/envelopes.js';
import type { Operation } from '../contract/operations.js';
import type { HandlerOutcome } from '../handlers/types.js';
import { jsonOf, withMember } from '../json-members.js';
import { retry, type RetryOptions } from '../retry.js';
import {
  EXTEND_IF_OURS,
  RELEASE_IF_OURS,
  redisScript,
  runScript,
  ScriptBatch,
  type ScriptSender,
} from '../redis-script.js';

/**
 * Outcomes already paid for, by requestId, for the dedupe window: a redelivered request
 * (after a crash, a rebalance or a redrive) reuses the outcome instead of calling the vendor
 * again (shared/contract.md: "at most one billable vendor call per requestId").
 *
 * Each outcome is stored with its operation and the sha256 of its canonical params: a
 * requestId reused for another operation or with other params must never be answered with
 * another person's outcome. Before a call the
 * requestId is reserved, so that concurrent copies wait for the one call instead of each paying.
 */
export interface PaidOutcome {
  /** sha256 of the canonical params; null for outcomes stored before hashes were kept. */
  paramsHash: string | null;
  /** The operation that paid; absent from outcomes stored before it was kept. */
  operation?: Operation;
  /** The message that paid; absent from outcomes stored before it was kept. */
  origin?: Origin;
  outcome: HandlerOutcome;
}

export interface Reservation {
  /**
   * Stores the paid outcome, then lets the reservation go. Never throws: while the write is
   * under way or the store fails (the reservation is then held and the write retried), this
   * process answers copies from memory. Callers need not wait for it: `settle` does.
   * `subjects` (the tax ids and plates the request named) list the outcome in the subject
   * index, by keyed hash, so that erasure finds it; while one of them is being erased the
   * outcome is not stored (it is published all the same: the next copy pays again).
   * `responseJson`, the JSON of the outcome's response when the caller has serialised it
   * already (for the result it writes), is stored as it is.
   */
  complete(paid: PaidOutcome, subjects?: readonly DataSubject[], responseJson?: string): Promise<void>;
  /** Lets the reservation go without an outcome (the call failed or was aborted). */
  release(): Promise<void>;
}

/** A paid outcome to reuse, a reservation to pay one, or undefined while another copy holds it. */
export type Claim = { paid: PaidOutcome } | { reservation: Reservation } | undefined;

export interface IdempotencyStore {
  /**
   * The outcome already paid for this requestId, else a reservation to pay it: one atomic
   * step, so a reservation is never taken after the outcome was paid. Undefined while another
   * copy holds the reservation. One record per requestId, whatever the operation: the caller
   * refuses an outcome another operation paid for. `operation` finds the records of older
   * versions, which kept one per operation.
   */
  claim(operation: Operation, requestId: string): Promise<Claim>;
  /**
   * Resolves once every outcome completed so far is stored (at shutdown, before Redis closes),
   * or once `signal` aborts (the shutdown deadline): writes still failing then stop being
   * retried, and their reservations lapse after reservationTtlMs, as at a crash.
   */
  settle(signal?: AbortSignal): Promise<void>;
}

/** sha256 of JSON with sorted keys: the same params give the same hash whatever their order. */
export function paramsHash(params: unknown): string {
  return createHash('sha256').update(canonicalJson(params)).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter((entry) => entry[1] !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value === undefined ? null : value);
}

export interface RedisIdempotencySettings {
  keyPrefix: string;
  windowSeconds: number;
  /** Life of a reservation without a heartbeat: past the vendor timeout, so only a crash lets it lapse. */
  reservationTtlMs: number;
  retryWriteMs?: number;
  /** Seals each outcome (AES-256-GCM) and indexes it by subject; absent: in clear (ALLOW_PLAINTEXT_REDIS). */
  atRest?: AtRest | undefined;
  /** A stored outcome this service did not seal, refused (the request is paid for instead). */
  onRefused?: OnRefused | undefined;
  /** An outcome not stored: a person its request named is being erased (it is published all the same). */
  onNotStored?: (() => void) | undefined;
}

/** A failed store is tried again at a steady pace (retryWriteMs) until it lands or shutdown. */
function storeRetry(retryWriteMs: number, signal: AbortSignal): RetryOptions {
  return { firstDelayMs: retryWriteMs, maxDelayMs: retryWriteMs, factor: 1, jitter: 'none', signal };
}

/** Waits for the writes under way; `signal` (the shutdown deadline) aborts `stopping`, ending their retries. */
async function settleWrites(
  writing: ReadonlySet<Promise<void>>,
  stopping: AbortController,
  signal: AbortSignal | undefined,
): Promise<void> {
  const stop = (): void => {
    stopping.abort(new Error('store retries stopped at shutdown'));
  };
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });
  try {
    await Promise.all(writing);
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

// One script per step, each atomic: the paid outcome or a new reservation; the outcome stored
// and the reservation freed together. Sent by digest (EVALSHA): the script text goes to Redis
// once, not with every request. Claims and stores made together go in one script run
// (ScriptBatch); the keys of different requests are in different cluster slots, so this store
// needs a single Redis server, not Redis Cluster.
// The claim also reads the keys of versions that kept one record per operation and requestId
// (KEYS[3], KEYS[4]), so that a rolling upgrade neither pays again for what an older replica
// paid nor calls while it holds the reservation. They lapse one dedupe window after the last
// older replica stops; drop them from the script in the release after.
const CLAIM = redisScript(
  `local paid = redis.call('get', KEYS[1]) if paid then return paid end paid = redis.call('get', KEYS[3]) if paid then return paid end if redis.call('exists', KEYS[4]) == 1 then return 0 end if redis.call('set', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end return 0`,
);
// The claim past a paid value that was refused (not sealed by this service): the reservation
// alone, on the same terms. Its outcome, once paid, replaces the refused value.
const RESERVE = redisScript(
  `if redis.call('exists', KEYS[2]) == 1 then return 0 end if redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end return 0`,
);
// Stores the outcome (KEYS[1]) and lists it (ARGV[4], the requestId) in the subject index
// entry of each keyed hash in ARGV[7] (space-separated; '' when the request named nobody),
// `ARGV[5]<digest>`: a set of requestIds that expires with the newest of them. Unless one of
// those subjects is being erased (`ARGV[6]<digest>` exists, erase's marker): then nothing is
// stored, and it answers 0. The reservation (KEYS[2]) is let go either way. The index and
// marker keys are built here from their prefixes (their number varies): one Redis server.
const STORE_AND_RELEASE = redisScript(
  `local erasing = false
for digest in string.gmatch(ARGV[7], '%S+') do
  if redis.call('exists', ARGV[6] .. digest) == 1 then erasing = true break end
end
if not erasing then
  redis.call('set', KEYS[1], ARGV[1], 'EX', ARGV[2])
  for digest in string.gmatch(ARGV[7], '%S+') do
    redis.call('sadd', ARGV[5] .. digest, ARGV[4])
    redis.call('expire', ARGV[5] .. digest, ARGV[2])
  end
end
if redis.call('get', KEYS[2]) == ARGV[3] then redis.call('del', KEYS[2]) end
if erasing then return 0 end
return 1`,
);

// One record per requestId, whatever the operation (contract.md: the idempotency key), under
// `request:`, apart from the older per-operation keys: a requestId may hold ':'.
export function requestKeys(keyPrefix: string, requestId: string): { paid: string; reserved: string } {
  return {
    paid: `${keyPrefix}:request:paid:${requestId}`,
    reserved: `${keyPrefix}:request:reserved:${requestId}`,
  };
}

/** The subject index entry of paid outcomes: requestIds by the keyed hash of a tax id or plate. */
export function paidSubjectKey(keyPrefix: string, digest: string): string {
  return `${keyPrefix}:subject:${digest}`;
}

/**
 * Erase's marker for a subject, by keyed hash: while it exists, no outcome of a request naming
 * that subject is stored (erase sets it before it reads anything, and removes it when done).
 */
export function paidErasingKey(keyPrefix: string, digest: string): string {
  return `${keyPrefix}:erasing:${digest}`;
}

/** The paid and reserved keys of the versions that kept one record per operation. */
function olderKeys(keyPrefix: string, operation: Operation, requestId: string): [string, string] {
  return [`${keyPrefix}:paid:${operation}:${requestId}`, `${keyPrefix}:reserved:${operation}:${requestId}`];
}

/** STORE_AND_RELEASE's ARGV[4] to ARGV[7]: the requestId, the index and marker prefixes, the keyed hashes. */
function subjectArgs(
  keyPrefix: string,
  atRest: AtRest | undefined,
  requestId: string,
  subjects: readonly DataSubject[],
): string[] {
  const digests = atRest ? subjects.map((subject) => atRest.index.digest(subject)).join(' ') : '';
  return [requestId, paidSubjectKey(keyPrefix, ''), paidErasingKey(keyPrefix, ''), digests];
}

export function redisIdempotencyStore(redis: Redis, settings: RedisIdempotencySettings): IdempotencyStore {
  const { keyPrefix, windowSeconds, reservationTtlMs, atRest } = settings;
  const retryWriteMs = settings.retryWriteMs ?? 1_000;
  // Paid outcomes this process has not stored yet: answered from here while the write is under
  // way or retried.
  const unsaved = new Map<string, PaidOutcome>();
  const writing = new Set<Promise<void>>();
  // Ends the retries of failing writes: at shutdown, never at a revocation (the next owner of
  // the request must find the outcome stored, not pay for it again).
  const stopping = new AbortController();
  const send: ScriptSender = (script, keys, args) => runScript(redis, script, keys, args);
  // A group of jobs claims together as it starts; answers arrive on separate sockets, so their
  // outcomes are stored together at the end of the event loop's turn.
  const claims = new ScriptBatch(send, CLAIM, { keys: 4, args: 2, flushOn: 'tick' });
  const stores = new ScriptBatch(send, STORE_AND_RELEASE, { keys: 2, args: 7, flushOn: 'turn' });
  const reservation = (id: string, key: string, token: string, requestId: string): Reservation => {
    const heartbeat = setInterval(() => {
      runScript(redis, EXTEND_IF_OURS, [key], [token, reservationTtlMs]).catch(() => undefined);
    }, reservationTtlMs / 3);
    heartbeat.unref();
    return {
      async release() {
        clearInterval(heartbeat);
        await runScript(redis, RELEASE_IF_OURS, [key], [token]).catch(() => undefined);
      },
      complete(paid, subjects = [], responseJson) {
        unsaved.set(id, paid);
        const write = (async () => {
          const value = sealForRedis(atRest?.cipher, encode(paidJson(paid, responseJson)), id);
          const args = [value, windowSeconds, token, ...subjectArgs(keyPrefix, atRest, requestId, subjects)];
          try {
            // Held, with its heartbeat, while it fails: copies elsewhere wait instead of paying again.
            const stored = await retry(
              () => stores.run([id, key], args),
              storeRetry(retryWriteMs, stopping.signal),
            );
            unsaved.delete(id);
            if (stored === 0) settings.onNotStored?.();
          } catch {
            // Only a shutdown ends the retries: the reservation lapses as at a crash.
          } finally {
            clearInterval(heartbeat);
          }
        })();
        writing.add(write);
        void write.finally(() => writing.delete(write));
        return write;
      },
    };
  };
  return {
    async claim(operation, requestId) {
      const { paid: id, reserved: key } = requestKeys(keyPrefix, requestId);
      const local = unsaved.get(id);
      if (local) return { paid: local };
      const token = randomUUID();
      const older = olderKeys(keyPrefix, operation, requestId);
      const reply = await claims.run([id, key, ...older], [token, reservationTtlMs]);
      const read = await claimReply(reply, redis, settings, { id, keys: [key, older[1]], token });
      return read === 'reserved' ? { reservation: reservation(id, key, token, requestId) } : read;
    },
    settle: (signal) => settleWrites(writing, stopping, signal),
  };
}

/**
 * What a claim's reply comes to: the paid outcome it holds, `reserved`, or undefined (another
 * copy holds the reservation). A paid value this service did not seal (at-rest/stored-values.ts)
 * is refused and reported: never served nor used to skip the call, it is claimed past as if
 * nothing were stored, and the outcome the call pays for replaces it.
 */
async function claimReply(
  reply: unknown,
  redis: Redis,
  settings: RedisIdempotencySettings,
  claim: { id: string; keys: [reserved: string, olderReserved: string]; token: string },
): Promise<{ paid: PaidOutcome } | 'reserved' | undefined> {
  let reserved = reply;
  if (Buffer.isBuffer(reply)) {
    const opened = openStoredValue(settings.atRest, reply, claim.id);
    if ('plain' in opened) return { paid: readPaid(opened.plain) };
    settings.onRefused?.(opened.refused);
    reserved = await runScript(redis, RESERVE, claim.keys, [claim.token, settings.reservationTtlMs]);
  }
  return reserved === 1 ? 'reserved' : undefined;
}

/**
 * The stored record of a paid outcome: the JSON of `paid`, its outcome's response spliced in
 * from `responseJson` (serialised once for the record and the result: about a tenth of the
 * CPU the service spent beyond the one-instance mode in benchmark (a) went to serialising each
 * outcome a second time) and read back by `readPaid` as any JSON.
 */
export function paidJson(paid: PaidOutcome, responseJson = jsonOf(paid.outcome.response)): string {
  const { outcome, ...head } = paid;
  const { response: _response, ...members } = outcome;
  const outcomeJson = withMember(JSON.stringify(members), 'response', responseJson);
  return withMember(JSON.stringify(head), 'outcome', outcomeJson);
}

export function readPaid(stored: Buffer): PaidOutcome {
  const parsed = JSON.parse(decode(stored)) as Partial<PaidOutcome> & HandlerOutcome;
  // Stored before params hashes were kept: the bare outcome.
  if (parsed.outcome === undefined) return { paramsHash: null, outcome: parsed };
  const { paramsHash = null, operation, origin, outcome } = parsed;
  return {
    paramsHash,
    ...(operation === undefined ? {} : { operation }),
    ...(origin === undefined ? {} : { origin }),
    outcome,
  };
}

/**
 * Large outcomes (face lookups carry document images) are gzipped at the fastest level; small
 * ones are stored as they are, since compressing them costs more CPU than it saves in Redis.
 * A gzip stream starts with 0x1f 0x8b, which JSON text never does.
 */
const COMPRESS_FROM_BYTES = 16 * 1024;

function encode(json: string): Buffer | string {
  return json.length < COMPRESS_FROM_BYTES ? json : gzipSync(json, { level: constants.Z_BEST_SPEED });
}

function decode(stored: Buffer): string {
  return stored[0] === 0x1f && stored[1] === 0x8b
    ? gunzipSync(stored).toString('utf8')
    : stored.toString('utf8');
}

/**
 * One instance only: paid outcomes in memory for the dedupe window, at most `maxEntries` of
 * them (MEMORY_DEDUPE_MAX_ENTRIES), so that memory is bounded whatever the window. Beyond it the
 * oldest settled outcome goes first (entries are kept in the order they were paid, which is
 * the order they expire in): a redelivery of its request after that (a redrive, a copy
 * published again) is paid for again, a second vendor call. Reservations, the requests being
 * paid for now, are never dropped: they are bounded by the work in flight, and dropping one
 * would let a copy call while the first call is under way. Expired outcomes are dropped from
 * the oldest end as new ones come, not only when their requestId comes back.
 */
export function memoryIdempotencyStore(
  windowSeconds: number,
  maxEntries = 50_000,
  now: () => number = Date.now,
): IdempotencyStore {
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new Error(`the in-memory dedupe store needs room for at least one outcome, got ${maxEntries}`);
  const entries = new Map<string, { paid: PaidOutcome; expiresAt: number }>();
  const reserved = new Set<string>();
  const put = (key: string, paid: PaidOutcome): void => {
    const at = now();
    entries.delete(key);
    entries.set(key, { paid, expiresAt: at + windowSeconds * 1000 });
    for (const [oldest, entry] of entries) {
      if (entries.size <= maxEntries && entry.expiresAt > at) break;
      entries.delete(oldest);
    }
  };
  return {
    claim(_operation, key) {
      const entry = entries.get(key);
      if (entry && entry.expiresAt > now()) return Promise.resolve({ paid: entry.paid });
      if (entry) entries.delete(key);
      if (reserved.has(key)) return Promise.resolve(undefined);
      reserved.add(key);
      return Promise.resolve({
        reservation: {
          complete(paid) {
            put(key, paid);
            reserved.delete(key);
            return Promise.resolve();
          },
          release() {
            reserved.delete(key);
            return Promise.resolve();
          },
        },
      });
    },
    settle: () => Promise.resolve(),
  };
}
