/**
 * Issue 50, finding 3: erase was not fail-closed. With its audit topic unwritable, `erase
 * --confirm` deleted the person's values and their index from Redis, then exited 1: an erase
 * had happened and no audit event said so. The erase now writes its intent (`erase-started`)
 * before it reads or removes anything: when that cannot be written, it reads and removes
 * nothing, and says so in one line with exit code 7; a run stopped after its intent removes
 * nothing either, and its result event says it is incomplete. On the real broker and Redis.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AuditError } from '../../src/audit/errors.js';
import { auditEventSchema } from '../../src/contract/audit-events.js';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor } from '../../src/sandbox/index.js';
import {
  eraseCli,
  eraseWithHook,
  redisKeysOf,
  storePaidOutcome,
  testAtRest,
  topicsForTest,
} from '../helpers/erase.js';
import { createTopicsReady } from '../helpers/create-topics.js';
import { publish, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});

const INDEX_KEY = randomBytes(32).toString('base64');
const person = { kind: 'tax-id', value: cpfFor('happy', 50_301) } as const;

describe('erase without its audit event erases nothing (issue 50, finding 3)', () => {
  it('with the audit topic refusing every event, --confirm exits 7 and leaves Redis as it was', async () => {
    const prefix = testPrefix('erase-unaudited');
    const audit = topicNames(prefix).audit;
    const admin = await stack.admin();
    // Every event is larger than the topic takes: the broker refuses each write.
    await admin.createTopics({
      topics: [
        {
          topic: audit,
          numPartitions: 1,
          replicationFactor: 1,
          configEntries: [{ name: 'max.message.bytes', value: '64' }],
        },
      ],
    });
    // A request of the person in Kafka, as in the review: the erase has something to list.
    const requests = topicNames(prefix).request('lawsuits-summary');
    await createTopicsReady(admin, [requests]);
    stack.onCleanup(() => admin.deleteTopics({ topics: [audit, requests], timeout: 30_000 }));
    await publish(stack.kafka, requests, [
      { key: person.value, value: { requestId: 'unaudited-1', params: { taxId: person.value } } },
    ]);
    const atRest = testAtRest(INDEX_KEY);
    const keys = redisKeysOf(prefix, atRest);
    stack.onCleanup(() => redis.del(keys.paid('unaudited-1'), keys.paidIndex(person)));
    await storePaidOutcome(redis, prefix, atRest, {
      requestId: 'unaudited-1',
      operation: 'lawsuits-summary',
      subjects: [person],
    });
    expect(await redis.smembers(keys.paidIndex(person))).toEqual(['unaudited-1']);

    const run = await eraseCli(prefix, INDEX_KEY)(['erase', '--tax-id', person.value, '--confirm']);

    // Nothing removed: the value and its index entry are as they were.
    expect(await redis.exists(keys.paid('unaudited-1'))).toBe(1);
    expect(await redis.smembers(keys.paidIndex(person))).toEqual(['unaudited-1']);
    expect(run.code).toBe(7);
    expect(run.stderr).toMatch(
      /^erase: cannot write the erase-started event to \S+\.audit \(.+\): nothing was read or erased\n$/,
    );
    expect(run.stdout).toBe('');
    expect(`${run.stdout}${run.stderr}`).not.toContain(person.value);
  });

  it('a run stopped after its intent removes nothing, and its result says it is incomplete', async () => {
    const prefix = testPrefix('erase-interrupted');
    const names = topicNames(prefix);
    await topicsForTest(stack, [names.request('lawsuits-summary'), names.audit]);
    await publish(stack.kafka, names.request('lawsuits-summary'), [
      { key: person.value, value: { requestId: 'interrupted-1', params: { taxId: person.value } } },
    ]);
    const atRest = testAtRest(INDEX_KEY);
    const keys = redisKeysOf(prefix, atRest);
    stack.onCleanup(() => redis.del(keys.paid('interrupted-1'), keys.paidIndex(person)));
    await storePaidOutcome(redis, prefix, atRest, {
      requestId: 'interrupted-1',
      operation: 'lawsuits-summary',
      subjects: [person],
    });
    // Ctrl-C while the erase reads Kafka.
    const interrupt = new AbortController();
    const run = await eraseWithHook(
      prefix,
      INDEX_KEY,
      { taxId: person.value, confirm: true },
      () => {
        interrupt.abort();
        return Promise.resolve();
      },
      interrupt.signal,
    );

    expect(await redis.exists(keys.paid('interrupted-1'))).toBe(1);
    expect(run.error).toBeInstanceOf(AuditError);
    expect(run.error).toMatchObject({ code: 'INCOMPLETE', exitCode: 6 });
    expect(run.lines).toEqual([]);
    const audit = await eraseCli(prefix, INDEX_KEY)(['replay', '--topic', names.audit]);
    const events = audit.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => auditEventSchema.parse((JSON.parse(line) as { value: unknown }).value));
    expect(events.map((e) => e.action)).toEqual(['erase-started', 'erase']);
    expect(events[1]).toMatchObject({
      dryRun: false,
      erased: { paidOutcomes: 0, pendingSearches: 0 },
      incomplete: true,
    });
  });
});
