/**
 * Issue 50, finding 5, and the review's erase run end to end: a byte search of every record
 * found 29 holding the person's CPF, erase listed 21. It missed the CPF in `metadata`, in an
 * unparseable request and its dead letter (`raw`), and inside vendor answers (a vehicle owner's
 * CPF); and in Redis it kept a `classify-document` outcome and a vehicle outcome whose Kafka
 * records it had listed.
 *
 * Here one person's requests across several operations go through the service and the vendor
 * sandbox, beside another person's; then every record of every topic of the prefix is searched
 * for the CPF (bare and masked, in base64 too), and erase must list exactly those records, and
 * leave none of the person's values in Redis, with its intent and its result on the audit
 * topic in that order. On the real broker, registry, Redis and sandbox; nothing is timed.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { auditEventSchema } from '../../src/contract/audit-events.js';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor, plateFor } from '../../src/sandbox/index.js';
import type { AuditCliRun } from '../helpers/audit-cli.js';
import { eraseCli, redisKeysOf, storePaidOutcome, testAtRest, topicsForTest } from '../helpers/erase.js';
import { publish, SANDBOX_KEY, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const redis = new Redis(inject('redisUrl'));
afterAll(async () => {
  await redis.quit();
});

const INDEX_KEY = randomBytes(32).toString('base64');
const other = cpfFor('happy', 50_599);
let prefix: string;
let person: string;
let cli: (args: string[]) => Promise<AuditCliRun>;

const masked = (cpf: string): string =>
  `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;

/** The person's requests that leave a value in Redis (paid outcome), and the one left pending. */
const PAID = [
  'e2e-summary',
  'e2e-party',
  'e2e-state',
  'e2e-metadata',
  'e2e-vehicle',
  'e2e-classify',
  'e2e-async',
];
const PENDING = ['e2e-async'];

/** A plate of the sandbox whose vehicle a person owns, and that person's CPF (from the vendor's answer). */
async function vehicleOwnedByAPerson(sandboxUrl: string): Promise<{ plate: string; owner: string }> {
  for (let i = 0; i < 50; i++) {
    const plate = plateFor('found', 50_500 + i);
    const answer = await fetch(`${sandboxUrl}/vehicles/v3?licensePlate=${plate}`, {
      headers: { authorization: `ApiKey ${SANDBOX_KEY}` },
    });
    const { data } = (await answer.json()) as {
      data: { proprietaryDocumentType: string; proprietaryDocumentNumber: string };
    };
    if (data.proprietaryDocumentType === 'CPF') return { plate, owner: data.proprietaryDocumentNumber };
  }
  throw new Error('no vehicle of a person among 50 plates');
}

/** Every record of every topic of the prefix as `replay` prints it (one JSON line each). */
async function everyRecord(): Promise<{ topic: string; partition: number; offset: string; text: string }[]> {
  const admin = await stack.admin();
  const topics = (await admin.listTopics()).filter((t) => t.startsWith(`${prefix}.`));
  const run = await cli(['replay', '--topic', topics.join(',')]);
  expect(run.code).toBe(0);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((text) => {
      const { topic, partition, offset } = JSON.parse(text) as {
        topic: string;
        partition: number;
        offset: string;
      };
      return { topic, partition, offset, text };
    });
}

/** A byte search: the CPF bare or masked, in the text or in any base64 inside it (twice over). */
function holdsCpf(text: string, cpf: string, depth = 0): boolean {
  if (text.includes(cpf) || text.includes(masked(cpf))) return true;
  if (depth === 2) return false;
  return [...text.matchAll(/[A-Za-z0-9+/]{16,}={0,2}/g)].some(([run]) =>
    holdsCpf(Buffer.from(run, 'base64').toString('latin1'), cpf, depth + 1),
  );
}

/** The ranges an erase run listed. */
function ranges(
  run: AuditCliRun,
): { topic: string; partition: number; messages: number; offsets?: string[] }[] {
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map(
      (line) =>
        (
          JSON.parse(line) as {
            retained: { topic: string; partition: number; messages: number; offsets?: string[] };
          }
        ).retained,
    );
}

/** How many records an erase run listed. */
const counted = (run: AuditCliRun): number => ranges(run).reduce((n, r) => n + r.messages, 0);

/** The records an erase run listed, as `topic/partition/offset`. */
function listed(run: AuditCliRun): string[] {
  return ranges(run)
    .flatMap(({ topic, partition, offsets = [] }) =>
      offsets.map((offset) => `${topic}/${partition}/${offset}`),
    )
    .sort();
}

beforeAll(async () => {
  const started = await stack.start('erase-e2e', {
    env: { REDIS_INDEX_KEY: INDEX_KEY, VEHICLE_SEARCH_POLL_MS: '600000' },
  });
  prefix = started.prefix;
  cli = eraseCli(prefix, INDEX_KEY);
  const { plate, owner } = await vehicleOwnedByAPerson(started.sandbox.url);
  person = owner;
  const names = topicNames(prefix);
  const document = Buffer.from(`REPUBLICA FEDERATIVA DO BRASIL - RG - CPF ${masked(person)}`);
  await publish(stack.kafka, names.request('lawsuits-summary'), [
    { key: person, value: { requestId: 'e2e-summary', params: { taxId: person } } },
    // The person only in metadata: a request about someone else, made on their behalf.
    {
      key: other,
      value: { requestId: 'e2e-metadata', params: { taxId: other }, metadata: { client: masked(person) } },
    },
    { key: other, value: { requestId: 'e2e-other', params: { taxId: other } } },
    // Not JSON: dead-lettered, its bytes kept in the dead letter's `raw`.
    { key: null, value: Buffer.from(`{"requestId":"e2e-bad","params":{"taxId":"${person}"`) },
  ]);
  await publish(stack.kafka, names.request('lawsuits-by-party'), [
    { key: 'party-search', value: { requestId: 'e2e-party', params: { taxId: person } } },
  ]);
  await publish(stack.kafka, names.request('state-registration'), [
    { key: masked(person), value: { requestId: 'e2e-state', params: { cpf: masked(person), uf: 'SP' } } },
  ]);
  // The person is named only in the vendor's answer: they own the vehicle.
  await publish(stack.kafka, names.request('vehicle'), [
    { key: plate, value: { requestId: 'e2e-vehicle', params: { licensePlate: plate } } },
  ]);
  await publish(stack.kafka, names.request('classify-document'), [
    {
      key: person,
      value: {
        requestId: 'e2e-classify',
        params: { file: { base64: document.toString('base64'), filename: 'rg.jpg' } },
      },
    },
  ]);
  await publish(stack.kafka, names.request('vehicle-async'), [
    {
      key: person,
      value: { requestId: 'e2e-async', params: { licensePlate: plateFor('async-sucessful', 50_598) } },
    },
  ]);
  const { collector } = started;
  await collector.waitFor(
    () =>
      collector.results().length === 8 && collector.errors().length === 1 && collector.events().length === 1,
    120_000,
    'eight results, a dead letter and a pending event',
  );
}, 300_000);

describe("erase lists every record a byte search finds, and leaves none of the person's values (issue 50, finding 5)", () => {
  it('reproduces the review: listed = found by a byte search, Redis emptied of the person, intent then result audited', async () => {
    const atRest = testAtRest(INDEX_KEY);
    const keys = redisKeysOf(prefix, atRest);
    const valuesOf = async (paid: string[], pending: string[]): Promise<number> =>
      (paid.length === 0 ? 0 : await redis.exists(...paid.map(keys.paid))) +
      (await Promise.all(pending.map((id) => redis.hexists(keys.searches, id)))).reduce((n, v) => n + v, 0);
    expect(await valuesOf(PAID, PENDING)).toBe(PAID.length + PENDING.length);
    expect(await valuesOf(['e2e-other'], [])).toBe(1);

    const found = (await everyRecord())
      .filter((record) => holdsCpf(record.text, person))
      .map(({ topic, partition, offset }) => `${topic}/${partition}/${offset}`)
      .sort();
    // The person's 7 requests (the vehicle lookup's names only the plate) and 7 results, the
    // dead letter and the pending search's event: 16 of the 19 records.
    expect(found).toHaveLength(16);
    const names = topicNames(prefix);
    // Each kind of place the review saw missed is among them.
    const topicsFound = found.map((id) => id.slice(0, id.indexOf('/')));
    for (const topic of [
      names.request('lawsuits-summary'),
      names.request('classify-document'),
      names.result('vehicle'),
      names.result('classify-document'),
      names.errors,
      names.vehicleSearchEvents,
    ])
      expect(topicsFound).toContain(topic);

    const dry = await cli(['erase', '--tax-id', person, '--actor', 'dpo-e2e']);
    expect(dry.code).toBe(0);
    expect(counted(dry)).toBe(found.length);
    expect(listed(dry)).toEqual(found);
    expect(await valuesOf(PAID, PENDING)).toBe(PAID.length + PENDING.length);

    const run = await cli(['erase', '--tax-id', masked(person), '--confirm', '--actor', 'dpo-e2e']);
    expect(run.code).toBe(0);
    expect(counted(run)).toBe(found.length);
    expect(listed(run)).toEqual(found);
    expect(run.stderr).toMatch(
      new RegExp(
        `^erase: erased for tax-id •+\\d\\d: ${PAID.length} paid outcome\\(s\\) and ${PENDING.length} pending search\\(es\\) removed from Redis \\(0 and 0 left\\); Kafka holds ${found.length} message\\(s\\)`,
      ),
    );
    expect(await valuesOf(PAID, PENDING)).toBe(0);
    expect(await valuesOf(['e2e-other'], [])).toBe(1);
    for (const output of [dry, run]) {
      expect(`${output.stdout}${output.stderr}`).not.toContain(person);
      expect(`${output.stdout}${output.stderr}`).not.toContain(masked(person));
    }

    const audit = await cli(['replay', '--topic', names.audit]);
    const events = audit.stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => auditEventSchema.parse((JSON.parse(line) as { value: unknown }).value))
      // The byte search above replays every topic, which audits itself (replay-started, replay);
      // events of different actions sit on different partitions: their times give the order.
      .filter((e) => e.action === 'erase-started' || e.action === 'erase')
      .sort((a, b) => a.at.localeCompare(b.at));
    expect(events.map((e) => [e.action, 'dryRun' in e ? e.dryRun : undefined])).toEqual([
      ['erase-started', true],
      ['erase', true],
      ['erase-started', false],
      ['erase', false],
    ]);
    expect(events.at(-1)).toMatchObject({
      actor: 'dpo-e2e',
      found: { paidOutcomes: PAID.length, pendingSearches: PENDING.length },
      erased: { paidOutcomes: PAID.length, pendingSearches: PENDING.length },
      retained: { messages: found.length },
    });
    expect(audit.stdout).not.toContain(person);
  });

  it("removes the value of a listed record's request even when the index lists it under someone else", async () => {
    const own = testPrefix('erase-by-request');
    const names = topicNames(own);
    await topicsForTest(stack, [names.result('vehicle'), names.audit]);
    const atRest = testAtRest(INDEX_KEY);
    const keys = redisKeysOf(own, atRest);
    const plate = { kind: 'plate', value: plateFor('found', 50_597) } as const;
    stack.onCleanup(() => redis.del(keys.paid('owned-1'), keys.paidIndex(plate)));
    // A vehicle lookup by plate: its outcome is indexed under the plate; the answer names the owner.
    await storePaidOutcome(redis, own, atRest, {
      requestId: 'owned-1',
      operation: 'vehicle',
      subjects: [plate],
    });
    await publish(stack.kafka, names.result('vehicle'), [
      {
        key: plate.value,
        value: { requestId: 'owned-1', response: { data: { proprietaryDocumentNumber: person } } },
      },
    ]);
    const run = await eraseCli(own, INDEX_KEY)(['erase', '--tax-id', person, '--confirm']);
    expect(run.code).toBe(0);
    expect(counted(run)).toBe(1);
    expect(run.stderr).toMatch(
      /: 1 paid outcome\(s\) and 0 pending search\(es\) removed from Redis \(0 and 0 left\)/,
    );
    expect(await redis.exists(keys.paid('owned-1'))).toBe(0);
  });
});
