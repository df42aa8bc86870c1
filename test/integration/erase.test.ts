/**
 * Issue 39, erasure: `erase --tax-id … | --plate …` finds a person's paid outcomes and pending
 * searches in Redis by the keyed hash of the identifier, lists the Kafka ranges that still
 * hold their messages, removes the Redis values only with --confirm, and writes an audit event
 * naming the actor and never the identifier. On the real broker, registry, Redis and sandbox.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { requestKeys } from '../../src/requests/idempotency.js';
import {
  auditEventSchema,
  type EraseAuditEvent,
  type EraseStartedAuditEvent,
} from '../../src/contract/audit-events.js';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor, plateFor, type Sandbox } from '../../src/sandbox/index.js';
import { pendingKeys } from '../../src/webhooks/redis-pending-store.js';
import type { AuditCliRun } from '../helpers/audit-cli.js';
import { eraseCli } from '../helpers/erase.js';
import { publish, type OutcomeCollector } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});
const INDEX_KEY = randomBytes(32).toString('base64');
const person = cpfFor('happy', 39_501);
const other = cpfFor('happy', 39_502);
const plate = plateFor('async-sucessful', 39_503);
let prefix: string;
let sandbox: Sandbox;
let collector: OutcomeCollector;

type Run = AuditCliRun;

const cli = (args: string[]): Promise<Run> => eraseCli(prefix, INDEX_KEY)(args);

const paid = (requestId: string) => redis.exists(requestKeys(`${prefix}:idempotency`, requestId).paid);
const pending = (requestId: string) =>
  redis.hexists(pendingKeys(`${prefix}:vehicle-search`).searches, requestId);
const retained = (run: Run) =>
  run.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map(
      (l) => (JSON.parse(l) as { retained: { topic: string; partition: number; messages: number } }).retained,
    );

beforeAll(async () => {
  ({ prefix, sandbox, collector } = await stack.start('erase', {
    env: {
      REDIS_ENCRYPTION_KEYS: `k1:${randomBytes(32).toString('base64')}`,
      REDIS_INDEX_KEY: INDEX_KEY,
      // The vehicle search stays pending for the whole test.
      VEHICLE_SEARCH_POLL_MS: '600000',
    },
  }));
  const names = topicNames(prefix);
  const summary = (requestId: string, taxId: string) => ({
    key: taxId,
    value: { requestId, params: { taxId } },
  });
  await publish(stack.kafka, names.request('lawsuits-summary'), [
    summary('erase-1', person),
    summary('erase-2', person),
    summary('keep-1', other),
  ]);
  await publish(stack.kafka, names.request('vehicle-async'), [
    { key: plate, value: { requestId: 'erase-plate', params: { licensePlate: plate } } },
  ]);
  await collector.waitFor(() => collector.results().length === 4, 60_000, 'four results');
  expect(sandbox.counters().billed).toBe(4);
}, 120_000);

describe('erase', () => {
  it("dry run lists the person's Redis values and Kafka ranges, removes nothing, and masks the tax id", async () => {
    const run = await cli(['erase', '--tax-id', person, '--actor', 'dpo-alice']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^erase: dry run for tax-id •+\d\d: 2 paid outcome\(s\) and 0 pending search\(es\) would be erased from Redis; Kafka holds 4 message\(s\) of it in \d partition\(s\) within retention \(listed\); --confirm to erase\n$/,
    );
    const ranges = retained(run);
    expect(ranges.reduce((n, r) => n + r.messages, 0)).toBe(4);
    expect(new Set(ranges.map((r) => r.topic))).toEqual(
      new Set([
        topicNames(prefix).request('lawsuits-summary'),
        topicNames(prefix).result('lawsuits-summary'),
      ]),
    );
    expect(`${run.stdout}${run.stderr}`).not.toContain(person);
    expect([await paid('erase-1'), await paid('erase-2'), await paid('keep-1')]).toEqual([1, 1, 1]);
  });

  it("--confirm removes the person's paid outcomes only, and leaves the ranges listed for the operator", async () => {
    const run = await cli(['erase', '--tax-id', person, '--confirm', '--actor', 'dpo-alice']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^erase: erased for tax-id •+\d\d: 2 paid outcome\(s\) and 0 pending search\(es\) removed from Redis \(0 and 0 left\); Kafka holds 4 message\(s\)/,
    );
    expect([await paid('erase-1'), await paid('erase-2'), await paid('keep-1')]).toEqual([0, 0, 1]);
    expect(retained(run).reduce((n, r) => n + r.messages, 0)).toBe(4);
    // Erased again: nothing left to find.
    const again = await cli(['erase', '--tax-id', person]);
    expect(again.stderr).toMatch(/: 0 paid outcome\(s\) and 0 pending search\(es\) would be erased/);
  });

  it('by plate: the paid outcome and the pending search of a vehicle-async request', async () => {
    expect([await paid('erase-plate'), await pending('erase-plate')]).toEqual([1, 1]);
    const run = await cli(['erase', '--plate', plate.toLowerCase(), '--confirm']);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^erase: erased for plate •+\w\w: 1 paid outcome\(s\) and 1 pending search\(es\) removed/,
    );
    expect([await paid('erase-plate'), await pending('erase-plate')]).toEqual([0, 0]);
    expect(`${run.stdout}${run.stderr}`).not.toContain(plate);
  });

  it('writes two audit events per run, its intent then its result, with the actor and the keyed hash, never the identifier', async () => {
    const run = await cli(['replay', '--topic', topicNames(prefix).audit]);
    expect(run.code).toBe(0);
    const all = run.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => auditEventSchema.parse((JSON.parse(l) as { value: unknown }).value));
    expect(all.map((e) => e.action)).toEqual(Array<string[]>(4).fill(['erase-started', 'erase']).flat());
    // Each run's intent names the same actor, dry run and subject as its result.
    const intents = all.filter((e): e is EraseStartedAuditEvent => e.action === 'erase-started');
    const events = all.filter((e): e is EraseAuditEvent => e.action === 'erase');
    const heading = ({ actor, dryRun, target }: EraseStartedAuditEvent | EraseAuditEvent) => ({
      actor,
      dryRun,
      target,
    });
    expect(intents.map(heading)).toEqual(events.map(heading));
    expect(
      events.map((e) => [e.actor, e.dryRun, e.target.kind, e.found, e.erased, e.retained.messages]),
    ).toEqual([
      [
        'dpo-alice',
        true,
        'tax-id',
        { paidOutcomes: 2, pendingSearches: 0 },
        { paidOutcomes: 0, pendingSearches: 0 },
        4,
      ],
      [
        'dpo-alice',
        false,
        'tax-id',
        { paidOutcomes: 2, pendingSearches: 0 },
        { paidOutcomes: 2, pendingSearches: 0 },
        4,
      ],
      [
        expect.any(String),
        true,
        'tax-id',
        { paidOutcomes: 0, pendingSearches: 0 },
        { paidOutcomes: 0, pendingSearches: 0 },
        4,
      ],
      [
        expect.any(String),
        false,
        'plate',
        { paidOutcomes: 1, pendingSearches: 1 },
        { paidOutcomes: 1, pendingSearches: 1 },
        3,
      ],
    ]);
    expect(new Set(events.slice(0, 3).map((e) => e.target.subject)).size).toBe(1);
    expect(run.stdout).not.toContain(person);
    expect(run.stdout).not.toContain(plate);
  });

  it('refuses both identifiers at once (exit code 2)', async () => {
    const both = await cli(['erase', '--tax-id', person, '--plate', plate]);
    expect([both.code, both.stderr]).toEqual([2, 'erase: give exactly one of --tax-id and --plate\n']);
  });
});
