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
import { pendingKeys } from '../../src/webhooks/redis-pending-store.js';
import { runAuditCli, type AuditCliRun } from './audit-cli.js';

/** Runs `erase` (or another audit command) under `prefix`, with the index key the values were stored with. */
export function eraseCli(prefix: string, indexKey: string): (args: string[]) => Promise<AuditCliRun> {
  return (args) =>
    runAuditCli(args, {
      KAFKA_BROKERS: inject('kafkaBrokers'),
      SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
      REDIS_URL: inject('redisUrl'),
      REDIS_INDEX_KEY: indexKey,
      TOPIC_PREFIX: prefix,
      KAFKA_CLIENT_ID: `${prefix}.erase`,
      KAFKA_GROUP_ID: `${prefix}.service`,
    });
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
 * the subject index under `subjects`. Resolves once it is written.
 */
export async function storePaidOutcome(
  redis: Redis,
  prefix: string,
  atRest: AtRest,
  paid: { requestId: string; operation: Operation; subjects: DataSubject[] },
): Promise<void> {
  const store = redisIdempotencyStore(redis, {
    keyPrefix: `${prefix}:idempotency`,
    windowSeconds: 600,
    reservationTtlMs: 30_000,
    atRest,
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
