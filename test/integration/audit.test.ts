/**
 * replay and redrive on the real stack: exact window boundaries over a few thousand messages
 * in three partitions, filters, undecodable values, aborted transactions, the trail of one
 * request, the redrive round trip through the real service and the sandbox, no consumer-group
 * offsets left behind, and the one-line errors.
 */
import { KafkaJS } from '@confluentinc/kafka-javascript';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import type { Admin, Message } from '../../src/kafka/client.js';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { openClients } from '../../src/audit/clients.js';
import type { AuditIo } from '../../src/audit/commands.js';
import { noProgress } from '../../src/audit/progress.js';
import { runReplay } from '../../src/audit/replay.js';
import { loadAuditConfig } from '../../src/config.js';
import { topicNames } from '../../src/contract/operations.js';
import { createRegistryClient } from '../../src/producers/registry-client.js';
import { registerTopicSchemas } from '../../src/producers/schema-registration.js';
import { cnpjFor, cpfFor, plateFor } from '../../src/sandbox/index.js';
import { runAuditCli } from '../helpers/audit-cli.js';
import { createTopicsReady } from '../helpers/create-topics.js';
import { publish, testPrefix } from '../helpers/service.js';
import { idempotentProducer } from '../helpers/stack.js';
import { useTestKafka } from '../helpers/test-kafka.js';
import { REPLAY_LINE_KEYS } from '../helpers/replay-line.js';

type Line = Record<string, unknown> & { value?: Record<string, unknown>; headers: Record<string, string> };
interface CliRun {
  code: number;
  stderr: string;
  lines: Line[];
}

const stack = useTestKafka();
const { kafka } = stack;
let admin: Admin;
const prefix = testPrefix('audit');
const clientId = `${prefix}.auditor`;
const bulk = `${prefix}.results.vehicle`;
const COUNT = 3000;
// Whole seconds, a day back: timestamps far from "now" and from each other's boundaries.
const T0 = Math.floor((Date.now() - 86_400_000) / 1000) * 1000;
const ts = (i: number) => T0 + i * 100;
const iso = (i: number) => new Date(ts(i)).toISOString();

/** Runs a command line (no quoting: arguments hold no spaces) in-process, with its own io. */
async function cli(
  line: string,
  env: Record<string, string> = {},
  extra: Partial<AuditIo> = {},
): Promise<CliRun> {
  const run = await runAuditCli(
    line.split(/\s+/),
    {
      KAFKA_BROKERS: inject('kafkaBrokers'),
      SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
      TOPIC_PREFIX: prefix,
      KAFKA_CLIENT_ID: clientId,
      KAFKA_GROUP_ID: `${prefix}.service`,
      ...env,
    },
    extra,
  );
  const lines = run.stdout
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Line);
  return { code: run.code, stderr: run.stderr, lines };
}

const requestIds = (run: CliRun) => run.lines.map((l) => l.value?.requestId);

function createTopics(topics: string[], partitions?: (topic: string) => number): Promise<void> {
  return createTopicsReady(admin, topics, partitions);
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** 3000 results over 3 partitions (i → partition i % 3, stamped T0 + 100 ms·i), a seventh framed. */
async function writeBulk(): Promise<void> {
  const registry = createRegistryClient(inject('schemaRegistryUrl'));
  const ids = await registerTopicSchemas(
    { registryUrl: inject('schemaRegistryUrl'), compatibility: 'NONE' },
    new Map([[bulk, { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object' }]]),
  );
  const id = ids.get(bulk) ?? -1;
  const messages: (Message & { partition: number })[] = [];
  for (let i = 0; i < COUNT; i++) {
    const value = { requestId: `req-${i}`, operation: 'vehicle', status: i % 10 === 0 ? 'not_found' : 'ok' };
    let bytes: Buffer = Buffer.from(JSON.stringify(value));
    if (i % 7 === 0) bytes = await registry.encode(id, value);
    if (i === 5) bytes = Buffer.from('not json {');
    if (i === 8) bytes = Buffer.concat([Buffer.from([0, 0, 0x0f, 0x42, 0x3f]), Buffer.from('{}')]);
    messages.push({ partition: i % 3, key: `key-${i % 50}`, value: bytes, timestamp: String(ts(i)) });
  }
  const producer = idempotentProducer(kafka);
  await producer.connect();
  for (let i = 0; i < messages.length; i += 500)
    await producer.send({ topic: bulk, messages: messages.slice(i, i + 500) });
  await producer.disconnect();
}

/** Then one aborted and one committed transaction on partition 0: it ends on a commit marker. */
async function writeTransactions(): Promise<void> {
  const producer = kafka.producer({
    kafkaJS: { transactionalId: `${prefix}.tx`, idempotent: true, maxInFlightRequests: 1 },
  });
  await producer.connect();
  for (const outcome of ['aborted', 'committed'] as const) {
    const transaction = await producer.transaction();
    await transaction.send({
      topic: bulk,
      messages: Array.from({ length: 5 }, (_, k) => ({
        partition: 0,
        key: 'tx',
        value: JSON.stringify({ requestId: `${outcome}-${k}`, operation: 'vehicle', status: 'ok' }),
        timestamp: String(ts(COUNT + k)),
      })),
    });
    if (outcome === 'aborted') await transaction.abort();
    else await transaction.commit();
  }
  await producer.disconnect();
}

beforeAll(async () => {
  admin = await stack.admin();
  // Every replay of personal data writes its audit events there (the service creates it).
  await createTopics([bulk, topicNames(prefix).audit], (t) => (t === bulk ? 3 : 1));
  await writeBulk();
  await writeTransactions();
});

describe('replay over a window', () => {
  it('includes the messages stamped exactly --from and excludes those stamped exactly --to', async () => {
    const run = await cli(`replay --topic ${bulk} --from ${iso(1200)} --to ${iso(2400)}`);
    expect(run.code, run.stderr).toBe(0);
    expect(run.lines).toHaveLength(1200);
    const ids = new Set(requestIds(run));
    expect(ids.has('req-1200')).toBe(true);
    expect(ids.has('req-2399')).toBe(true);
    expect(ids.has('req-1199')).toBe(false);
    expect(ids.has('req-2400')).toBe(false);
    expect(ids.size).toBe(1200);
    const framed = run.lines.find((l) => l.value?.requestId === 'req-1204');
    expect(framed).toMatchObject({ topic: bulk, partition: 1204 % 3, key: 'key-4', timestamp: iso(1204) });
    expect(Object.keys(framed ?? {})).toEqual(REPLAY_LINE_KEYS);
    expect(run.stderr).toMatch(
      /^replay: 1200 of 1200 messages written \(0 undecodable\) from 1 topic\(s\)\n$/,
    );
  });

  it('shows a message stamped out of order once across consecutive windows, where the log puts it', async () => {
    const skewed = `${prefix}.skewed`;
    await createTopics([skewed], () => 1);
    // Offsets 0-3 stamped T0, T0+2 s, T0+1 s (a producer's clock behind), T0+3 s.
    const stamps = [0, 20, 10, 30];
    await publish(
      kafka,
      skewed,
      stamps.map((i) => ({
        key: null,
        value: { requestId: `skew-${i}`, operation: 'vehicle', status: 'ok' },
        timestamp: ts(i),
      })),
    );
    const first = await cli(`replay --topic ${skewed} --from ${iso(0)} --to ${iso(15)}`);
    const second = await cli(`replay --topic ${skewed} --from ${iso(15)} --to ${iso(40)}`);
    expect([first.code, second.code]).toEqual([0, 0]);
    // [T0, T0+1.5 s) ends at offset 1, the first stamped at or after its end; offset 2 follows.
    expect(requestIds(first)).toEqual(['skew-0']);
    expect(requestIds(second)).toEqual(['skew-20', 'skew-10', 'skew-30']);
    expect(second.lines[1]?.timestamp).toBe(iso(10));
    expect(second.stderr).toMatch(/\(0 undecodable, 1 stamped outside the window\)/);
  });

  it('reads an offset range [--from-offset, --to-offset) of one partition', async () => {
    const run = await cli(`replay --topic ${bulk} --partition 1 --from-offset 10 --to-offset 20`);
    expect(run.lines.map((l) => [l.partition, l.offset])).toEqual(
      Array.from({ length: 10 }, (_, k) => [1, String(10 + k)]),
    );
    expect(requestIds(run)).toEqual(Array.from({ length: 10 }, (_, k) => `req-${3 * (10 + k) + 1}`));
  });

  it('reports undecodable values as raw base64 with the error and goes on', async () => {
    const run = await cli(`replay --topic ${bulk} --partition 2 --from-offset 1 --to-offset 4`);
    expect(run.lines.map((l) => [l.offset, l.raw === undefined, l.value?.requestId])).toEqual([
      ['1', false, undefined],
      ['2', false, undefined],
      ['3', true, 'req-11'],
    ]);
    expect(Buffer.from(String(run.lines[0]?.raw), 'base64').toString()).toBe('not json {');
    expect(run.lines[0]?.error).toMatch(/not valid JSON/);
    expect(run.lines[1]?.error).toMatch(/schema id 999999/);
    expect(run.stderr).toMatch(/\(2 undecodable\)/);
  });

  it('filters by status, key and requestId', async () => {
    const notFound = await cli(`replay --topic ${bulk} --status not_found --key key-0`);
    expect(notFound.lines).toHaveLength(COUNT / 50);
    expect(notFound.lines.every((l) => l.key === 'key-0' && l.value?.status === 'not_found')).toBe(true);
    const byId = await cli(`replay --topic ${bulk} --request-id req-77,req-2999 --request-id req-1`);
    expect(requestIds(byId).sort()).toEqual(['req-1', 'req-2999', 'req-77']);
  });

  it('reads to the end at start: aborted transactions hidden, a trailing commit marker ends it', async () => {
    const run = await cli(`replay --topic ${bulk}`);
    expect(run.code, run.stderr).toBe(0);
    const ids = requestIds(run);
    expect(ids).toHaveLength(COUNT + 5);
    expect(ids.filter((id) => String(id).startsWith('committed-'))).toHaveLength(5);
    expect(ids.some((id) => String(id).startsWith('aborted-'))).toBe(false);
  });

  it('republishes a window to another topic, each copy naming its original', async () => {
    const target = `${prefix}.copy`;
    await createTopics([target]);
    const run = await cli(`replay --topic ${bulk} --from ${iso(100)} --to ${iso(130)} --to-topic ${target}`);
    expect(run.stderr).toMatch(/30 of 30 messages republished/);
    const copy = await cli(`replay --topic ${target}`);
    expect(copy.lines).toHaveLength(30);
    expect(copy.lines[0]?.headers['x-replay-of']).toMatch(
      new RegExp(`^${bulk.replace(/\./g, '\\.')}/\\d/\\d+$`),
    );
  });
});

describe('replay leaves nothing on the cluster', () => {
  it('its throwaway group never commits an offset, is deleted afterwards, and the service group is untouched', async () => {
    const config = loadAuditConfig(
      {
        KAFKA_BROKERS: inject('kafkaBrokers'),
        KAFKA_CLIENT_ID: clientId,
        KAFKA_GROUP_ID: `${prefix}.service`,
        TOPIC_PREFIX: prefix,
      },
      {},
    );
    const clients = await openClients(config);
    try {
      const summary = await runReplay(
        { config, clients, progress: noProgress, warn: () => undefined, keepGroup: true },
        {
          selection: { names: [bulk] },
          window: { kind: 'time' },
          filter: {},
          trail: false,
          output: { kind: 'lines', sink: { write: () => Promise.resolve(), close: () => Promise.resolve() } },
        },
      );
      const groupId = summary.reader.groupId ?? '';
      expect(groupId).toMatch(new RegExp(`^${clientId.replace(/\./g, '\\.')}\\.audit\\.`));
      expect(summary.read).toBe(COUNT + 5);
      expect(summary.reader.committedOffsets).toBe(0);
      // Checked after the consumer disconnected: the reader was assigned its partitions, so the
      // broker knows no such group, and nothing was committed under it.
      const reader = await stack.groupOffsets(groupId);
      const offsets = await reader.fetchOffsets({ groupId, topics: [bulk] });
      expect(offsets.flatMap((t) => t.partitions)).not.toEqual([]);
      expect(offsets.flatMap((t) => t.partitions).filter((p) => Number(p.offset) >= 0)).toEqual([]);
      const listed = (await admin.listGroups()).groups.find((g) => g.groupId === groupId);
      expect([undefined, KafkaJS.ConsumerGroupStates.EMPTY, KafkaJS.ConsumerGroupStates.DEAD]).toContain(
        listed?.state,
      );
    } finally {
      await clients.close();
    }
    await cli(`replay --topic ${bulk} --to ${iso(10)}`);
    const { groups } = await admin.listGroups();
    const ours = groups
      .map((g) => g.groupId)
      .filter((id) => id.startsWith(clientId) || id === `${prefix}.service`);
    expect(ours).toEqual([]);
  });
});

/** A message stamped T0 + `seconds`, with a CloudEvents subject that is not its requestId. */
async function sendAt(topic: string, seconds: number, value: object, key = 'ABC1D23'): Promise<void> {
  const producer = idempotentProducer(kafka);
  await producer.connect();
  const headers = { ce_subject: 'x' };
  await producer.send({
    topic,
    messages: [{ key, value: JSON.stringify(value), timestamp: String(T0 + seconds * 1000), headers }],
  });
  await producer.disconnect();
}

function deadLetter(
  requestId: string,
  operation: string,
  kind: string,
  request: object,
  originTopic: string,
) {
  return {
    requestId,
    operation,
    attempts: 1,
    failedAt: new Date(T0).toISOString(),
    error: { kind, message: 'crafted', retryable: false },
    request,
    origin: { topic: originTopic, partition: 0, offset: '0' },
  };
}

describe('the trail of one request', () => {
  it('shows the request, its outcomes and its events in time order; dead letters filter by kind and operation', async () => {
    const p = testPrefix('audit_trail');
    const names = topicNames(p);
    const requests = names.request('vehicle-async');
    const results = names.result('vehicle-async');
    const events = names.vehicleSearchEvents;
    await createTopics([requests, results, names.errors, events, names.audit], (t) =>
      t === names.errors ? 2 : 1,
    );
    const dead = (id: string, op: string, kind: string) =>
      deadLetter(id, op, kind, { requestId: id }, requests);
    await sendAt(requests, 0, { requestId: 'R', params: { licensePlate: 'ABC1D23' } });
    await sendAt(requests, 0, { requestId: 'other', params: { licensePlate: 'XYZ9A99' } }, 'XYZ9A99');
    await sendAt(events, 3, {
      requestId: 'R',
      searchId: 's',
      status: 'completed',
      via: 'webhook',
      at: iso(0),
    });
    await sendAt(names.errors, 2, dead('R', 'vehicle-async', 'timeout'));
    await sendAt(events, 1, { requestId: 'R', searchId: 's', status: 'pending', at: iso(0) });
    await sendAt(results, 1, { requestId: 'R', operation: 'vehicle-async', status: 'accepted' });
    await sendAt(names.errors, 4, dead('other', 'lawsuits-summary', 'upstream_rejected'));

    const trail = await cli(`replay --prefix ${p} --request-id R`);
    expect(trail.code).toBe(0);
    const step = (l: Line) => l.value?.status ?? (l.value?.error as { kind?: string } | undefined)?.kind;
    expect(trail.lines.map((l) => [l.topic, step(l) ?? 'request'])).toEqual([
      [requests, 'request'],
      [results, 'accepted'],
      [events, 'pending'],
      [names.errors, 'timeout'],
      [events, 'completed'],
    ]);
    const byKind = await cli(`replay --prefix ${p} --kind errors --error-kind upstream_rejected`);
    expect(requestIds(byKind)).toEqual(['other']);
    const byOperation = await cli(`replay --prefix ${p} --kind errors --operation vehicle-async`);
    expect(requestIds(byOperation)).toEqual(['R']);
  });
});

describe('redrive', () => {
  it('republishes dead letters; a paid requestId reuses its outcome, an unpaid one is paid once', async () => {
    const {
      prefix: p,
      sandbox,
      collector,
    } = await stack.start('audit_redrive', {
      env: { RETRY_MAX_ATTEMPTS: '1' },
    });
    const names = topicNames(p);
    const paid = { requestId: 'paid-1', params: { taxId: cpfFor('happy', 31) } };
    await publish(kafka, names.request('lawsuits-summary'), [{ key: paid.params.taxId, value: paid }]);
    await collector.waitFor(() => collector.results().length === 1, 30_000, 'the paid result');
    sandbox.setKnobs({ errorRate: 1, errorKind: '5xx', errorStatus: 503 });
    const failing = { requestId: 'failed-1', params: { licensePlate: plateFor('found', 32) } };
    await publish(kafka, names.request('vehicle'), [{ key: failing.params.licensePlate, value: failing }]);
    await collector.waitFor(() => collector.errors().length === 1, 30_000, 'the genuine dead letter');
    sandbox.setKnobs({ errorRate: 0 });
    // Crafted: the paid request as if it had then failed, and an unreadable request as raw bytes.
    const unreadable = { requestId: 'raw-1', params: { taxId: cnpjFor('happy', 33) } };
    const raw = { raw: Buffer.from(JSON.stringify(unreadable)).toString('base64') };
    await publish(kafka, names.errors, [
      {
        key: paid.params.taxId,
        value: deadLetter('paid-1', 'lawsuits-summary', 'internal', paid, names.request('lawsuits-summary')),
      },
      {
        key: unreadable.params.taxId,
        value: deadLetter('raw-1', 'company-partners', 'internal', raw, names.request('company-partners')),
      },
    ]);
    const billedBefore = sandbox.counters().byOperation;
    expect(billedBefore).toEqual({ 'lawsuits-summary': 1 });

    const dry = await cli(`redrive --prefix ${p} --dry-run`);
    expect(dry.lines.map((l) => [l.action, l.requestId, l.encoding])).toEqual(
      expect.arrayContaining([
        ['would-redrive', 'failed-1', 'json'],
        ['would-redrive', 'paid-1', 'json'],
        ['would-redrive', 'raw-1', 'raw'],
      ]),
    );
    // Keys (tax ids, plates) are masked in the output unless asked for (issue 39, N4).
    const masked = (key: string): string => `${'•'.repeat(key.length - 2)}${key.slice(-2)}`;
    const failedLine = dry.lines.find((l) => l.requestId === 'failed-1');
    expect(failedLine?.key).toBe(masked(failing.params.licensePlate));
    expect(JSON.stringify(dry.lines)).not.toContain(paid.params.taxId);
    const onlyOne = await cli(`redrive --prefix ${p} --dry-run --error-kind upstream_unavailable`);
    expect(onlyOne.lines.map((l) => l.requestId)).toEqual(['failed-1']);
    const shown = await cli(`redrive --prefix ${p} --dry-run --error-kind upstream_unavailable --show-keys`);
    expect(shown.lines.map((l) => l.key)).toEqual([failing.params.licensePlate]);
    const requestsBefore = await cli(`replay --prefix ${p} --kind requests`);
    expect(requestsBefore.lines).toHaveLength(2);

    const redrive = await cli(`redrive --prefix ${p} --actor ana.lima`);
    expect(redrive.code).toBe(0);
    expect(redrive.lines.map((l) => l.action)).toEqual(['redriven', 'redriven', 'redriven']);
    expect(JSON.stringify(redrive.lines)).not.toContain(paid.params.taxId);
    // The redrive is audited like the console's, with who ran it (issue 39, N4); the dry runs
    // are not, but for the one that showed keys whole, nor is reading the audit topic; the
    // replay of the requests is (issue 50, 12).
    const audit = await cli(`replay --prefix ${p} --topic ${names.audit}`);
    const user = expect.any(String) as string;
    // Keyed by the action: each action's events in log order, the actions in partitions of their own.
    const rows = audit.lines.map((l) => [l.key, l.value?.actor, l.value?.role, l.value?.count]);
    expect(rows).toHaveLength(5);
    expect(rows).toEqual(
      expect.arrayContaining([
        ['redrive-keys-shown', user, 'cli', undefined],
        ['replay-started', user, 'cli', undefined],
        ['replay', user, 'cli', 2],
        ['redrive-started', 'ana.lima', 'cli', undefined],
        ['redrive', 'ana.lima', 'cli', 3],
      ]),
    );
    expect(JSON.stringify(audit.lines)).not.toContain(paid.params.taxId);
    await collector.waitFor(() => collector.results().length === 4, 30_000, 'three redriven results');
    const byId = (id: string) => collector.results().filter((r) => r.value.requestId === id);
    expect(byId('paid-1').map((r) => r.value.attempts)).toEqual([1, 0]); // reused, not paid again
    expect(byId('failed-1')).toHaveLength(1);
    expect(byId('raw-1')).toHaveLength(1);
    expect(sandbox.counters().byOperation).toEqual({
      'lawsuits-summary': 1,
      vehicle: 1,
      'company-partners': 1,
    });
    const requestsAfter = await cli(`replay --prefix ${p} --kind requests --request-id paid-1`);
    const redriven = requestsAfter.lines.find((l) => l.headers['x-redrive-of'] !== undefined);
    expect(redriven?.headers['x-redrive-of']).toMatch(
      new RegExp(`^${names.errors.replace(/\./g, '\\.')}/\\d/\\d+$`),
    );
    expect(redriven?.key).toBe(paid.params.taxId);
    expect(redriven?.value).toEqual(paid);
  });
});

describe('errors are one line and a non-zero exit code', () => {
  it('reversed or empty windows, unknown topics, unreachable broker or registry', async () => {
    const reversed = await cli(`replay --topic ${bulk} --from ${iso(10)} --to ${iso(5)}`);
    expect([reversed.code, reversed.stderr]).toEqual([
      2,
      expect.stringMatching(/^replay: the window is reversed: .*\n$/),
    ]);
    // After every message, transaction markers (stamped by the broker, now) included.
    const later = new Date(Date.now() + 3_600_000).toISOString();
    const empty = await cli(`replay --topic ${bulk} --from ${later}`);
    expect([empty.code, empty.stderr]).toEqual([4, expect.stringMatching(/^replay: no messages in .*\n$/)]);
    const unknown = await cli(`replay --topic ${prefix}.nope`);
    expect([unknown.code, unknown.stderr]).toEqual([3, `replay: unknown topic: ${prefix}.nope\n`]);
    const port = await closedPort();
    const broker = await cli(`replay --topic ${bulk}`, { KAFKA_BROKERS: `127.0.0.1:${port}` });
    expect([broker.code, broker.stderr]).toEqual([
      5,
      expect.stringMatching(/^replay: cannot reach Kafka at 127\.0\.0\.1:\d+: .*Connection refused.*\n$/),
    ]);
    const registry = await cli(`replay --topic ${bulk}`, {
      SCHEMA_REGISTRY_URL: `http://127.0.0.1:${port}`,
    });
    expect([registry.code, registry.stderr]).toEqual([
      5,
      expect.stringMatching(/^replay: cannot reach the schema registry at .*\n$/),
    ]);
  });

  it('the real process gives up and exits 5, in one line, when the broker is unreachable', async () => {
    const port = await closedPort();
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        'node_modules/.bin/tsx',
        ['src/cli.ts', 'replay', '--kind', 'results'],
        {
          env: { ...process.env, KAFKA_BROKERS: `127.0.0.1:${port}`, SCHEMA_REGISTRY_URL: '' },
          // Ends only a hung process: tsx compiling the command line took over 30 s with both
          // cores busy, and the process was killed before it could give up by itself.
          timeout: 100_000,
        },
        (error, _stdout, stderr) => {
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr });
        },
      );
    });
    expect(result.code).toBe(5);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^replay: cannot reach Kafka at /),
    ]);
  });
});
