/**
 * What the erase tests share: the command run in-process against the shared stack under a
 * prefix, and values of a person stored in Redis as the service stores them (sealed, indexed
 * by the keyed hash of their identifier).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { inject } from 'vitest';
import { DataCipher } from '../../src/at-rest/cipher.js';
import { SubjectIndex, type DataSubject } from '../../src/at-rest/subjects.js';
import type { AtRest } from '../../src/config-at-rest.js';
import type { Operation } from '../../src/contract/operations.js';
import { paidSubjectKey, redisIdempotencyStore, requestKeys } from '../../src/requests/idempotency.js';
import { pendingKeys, redisPendingStore } from '../../src/webhooks/redis-pending-store.js';
import { openClients } from '../../src/audit/clients.js';
import { planEraseFlags, runErase, type EraseFlags, type EraseSummary } from '../../src/audit/erase.js';
import type { LineSink } from '../../src/audit/jsonl.js';
import { noProgress } from '../../src/audit/progress.js';
import type { RangeConsumer } from '../../src/audit/reader.js';
import type { AuditContext } from '../../src/audit/scan.js';
import { loadAuditConfig } from '../../src/config.js';
import { runAuditCli, type AuditCliRun } from './audit-cli.js';
import { createTopicsReady } from './create-topics.js';
import type { TestKafka } from './test-kafka.js';

/** The environment of an audit command under `prefix`, with the index key the values were stored with. */
function eraseEnv(prefix: string, indexKey: string): Record<string, string> {
  return {
    KAFKA_BROKERS: inject('kafkaBrokers'),
    SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
    REDIS_URL: inject('redisUrl'),
    REDIS_INDEX_KEY: indexKey,
    TOPIC_PREFIX: prefix,
    KAFKA_CLIENT_ID: `${prefix}.erase`,
    KAFKA_GROUP_ID: `${prefix}.service`,
  };
}

/** Runs `erase` (or another audit command) under `prefix`, with the index key the values were stored with. */
export function eraseCli(prefix: string, indexKey: string): (args: string[]) => Promise<AuditCliRun> {
  return (args) => runAuditCli(args, eraseEnv(prefix, indexKey));
}

/** Encryption at rest with a fresh cipher key and the given index key. */
export function testAtRest(indexKey: string): AtRest {
  return {
    cipher: new DataCipher([{ id: 'k1', material: randomBytes(32) }], 'REDIS_ENCRYPTION_KEYS'),
    index: new SubjectIndex(indexKey),
  };
}

/** The Redis keys a person's values sit under, by requestId and by subject. */
export function redisKeysOf(prefix: string, atRest: AtRest) {
  const idempotency = `${prefix}:idempotency`;
  const pending = pendingKeys(`${prefix}:vehicle-search`);
  return {
    paid: (requestId: string) => requestKeys(idempotency, requestId).paid,
    paidIndex: (subject: DataSubject) => paidSubjectKey(idempotency, atRest.index.digest(subject)),
    pendingIndex: (subject: DataSubject) => pending.subject(atRest.index.digest(subject)),
    searches: pending.searches,
    due: pending.due,
  };
}

/**
 * Stores a paid outcome for `requestId` as the service does (claim, then complete), listed in
 * the subject index under `subjects`. Resolves once it is written, or `onNotStored` heard that
 * it was not.
 */
export async function storePaidOutcome(
  redis: Redis,
  prefix: string,
  atRest: AtRest,
  paid: { requestId: string; operation: Operation; subjects: DataSubject[] },
  onNotStored?: () => void,
): Promise<void> {
  const store = redisIdempotencyStore(redis, {
    keyPrefix: `${prefix}:idempotency`,
    windowSeconds: 600,
    reservationTtlMs: 30_000,
    atRest,
    onNotStored,
  });
  const claim = await store.claim(paid.operation, paid.requestId);
  if (!claim || !('reservation' in claim)) throw new Error(`${paid.requestId} is stored already`);
  await claim.reservation.complete(
    {
      paramsHash: null,
      operation: paid.operation,
      outcome: { status: 'ok', response: { stored: paid.requestId }, vendor: { httpStatus: 200 } },
    },
    paid.subjects,
  );
}

/**
 * Records a pending vehicle search for `requestId` as the service does, listed in the subject
 * index under what its key and metadata name. `onNotStored` hears when it was not recorded.
 */
export async function storePendingSearch(
  redis: Redis,
  prefix: string,
  atRest: AtRest,
  search: { requestId: string; key: string; metadata?: Record<string, string> },
  onNotStored?: () => void,
): Promise<void> {
  const store = redisPendingStore(redis, `${prefix}:vehicle-search`, {
    atRest,
    indexTtlMs: 600_000,
    onNotStored,
  });
  await store.add(
    {
      requestId: search.requestId,
      searchId: `search-of-${search.requestId}`,
      createdAt: Date.now(),
      key: Buffer.from(search.key).toString('base64'),
      ...(search.metadata ? { metadata: search.metadata } : {}),
      polls: 0,
    },
    Date.now() + 600_000,
  );
}

/**
 * Runs the erase as the command does, but in this process with its own context, calling
 * `duringScan` as the Kafka scan's consumer connects (after the scan has fixed the offsets it
 * reads to, before it reads): a store made there happens while the erase scans Kafka; `signal`
 * is the command's Ctrl-C. Resolves
 * with the lines written, the warnings, and the summary or the error.
 */
export async function eraseWithHook(
  prefix: string,
  indexKey: string,
  flags: EraseFlags,
  duringScan: () => Promise<void>,
  signal?: AbortSignal,
): Promise<{
  lines: object[];
  warnings: string[];
  /** How many times `duringScan` ran, and what it threw. */
  hook: { runs: number; error?: unknown };
  summary?: EraseSummary;
  error?: unknown;
}> {
  const env = eraseEnv(prefix, indexKey);
  const config = loadAuditConfig({}, env);
  const clients = await openClients(config);
  const lines: object[] = [];
  const warnings: string[] = [];
  const hook: { runs: number; error?: unknown } = { runs: 0 };
  const during = async (): Promise<void> => {
    hook.runs += 1;
    await duringScan().catch((error: unknown) => {
      hook.error = error;
    });
  };
  const ctx: AuditContext = {
    config,
    clients: {
      ...clients,
      openConsumer: (groupId) => connectingAfter(clients.openConsumer(groupId), during),
    },
    progress: noProgress,
    warn: (message) => warnings.push(message),
    signal,
  };
  const sink: LineSink = {
    write: (line) => {
      lines.push(line);
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
  try {
    const summary = await runErase(ctx, planEraseFlags(flags, 'dpo-test'), env, sink);
    return { lines, warnings, hook, summary };
  } catch (error) {
    return { lines, warnings, hook, error };
  } finally {
    await clients.close();
  }
}

/** `consumer`, whose connect waits for `before` (which never rejects) first. */
function connectingAfter(consumer: RangeConsumer, before: () => Promise<void>): RangeConsumer {
  return new Proxy(consumer, {
    get(target, property, receiver) {
      if (property === 'connect') {
        return (...args: Parameters<RangeConsumer['connect']>) => {
          void before().then(() => target.connect(...args));
          return receiver as RangeConsumer;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Creates `topics` (one partition each) for the test, and deletes them after it. */
export async function topicsForTest(stack: TestKafka, topics: string[]): Promise<void> {
  const admin = await stack.admin();
  await createTopicsReady(admin, topics);
  stack.onCleanup(() => admin.deleteTopics({ topics, timeout: 30_000 }));
}
