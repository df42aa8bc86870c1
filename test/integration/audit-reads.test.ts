/**
 * Issue 50, finding 12: `replay` and `redrive --show-keys` show personal data (tax ids, names,
 * keys) to whoever runs them. Each writes an audit event naming the actor to `<prefix>.audit`
 * before the first message is shown, and shows nothing when that event cannot be written
 * (fail closed). On the real broker: the output is held at its first line until the test has
 * looked at the audit topic, so "before" is seen, not inferred.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Admin } from '../../src/kafka/client.js';
import { consoleAuditEventSchema, type ConsoleAuditEvent } from '../../src/contract/audit-events.js';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { runAuditCli, type AuditCliRun } from '../helpers/audit-cli.js';
import { createTopicsReady } from '../helpers/create-topics.js';
import { publish, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
let admin: Admin;
const person = cpfFor('happy', 50_012);
const name = 'MARIA APARECIDA DOS SANTOS';
const written = testPrefix('audit_reads');
// Its audit topic refuses every event (max.message.bytes 1); the other prefix has none at all.
const refusing = testPrefix('audit_reads_refused');
const missing = testPrefix('audit_reads_missing');
const prefixes = [written, refusing, missing];

function env(prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    KAFKA_BROKERS: inject('kafkaBrokers'),
    SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
    TOPIC_PREFIX: prefix,
    KAFKA_CLIENT_ID: `${prefix}.auditor`,
    KAFKA_GROUP_ID: `${prefix}.service`,
    ...extra,
  };
}

/** The events on the prefix's audit topic (reading it is no read of personal data: no event). */
async function auditEvents(prefix: string): Promise<ConsoleAuditEvent[]> {
  const run = await runAuditCli(['replay', '--topic', topicNames(prefix).audit], env(prefix));
  if (run.code === 4) return []; // an empty topic: an empty window
  expect(run.code, run.stderr).toBe(0);
  return run.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => consoleAuditEventSchema.parse((JSON.parse(line) as { value: unknown }).value));
}

interface HeldRun extends AuditCliRun {
  /** The prefix's audit events as they were when the command wrote its first line, if it did. */
  auditAtFirstLine: ConsoleAuditEvent[] | undefined;
}

/**
 * Runs a command whose output waits at its first line (a one-byte buffer: the command's next
 * write waits for it) until the audit topic has been read: what it holds then was written
 * before anything was shown.
 */
async function held(args: string[], prefix: string, extra: Record<string, string> = {}): Promise<HeldRun> {
  const chunks: Buffer[] = [];
  let auditAtFirstLine: ConsoleAuditEvent[] | undefined;
  const stdout = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      if (auditAtFirstLine !== undefined) {
        done();
        return;
      }
      auditEvents(prefix).then(
        (events) => {
          auditAtFirstLine = events;
          done();
        },
        (error: unknown) => {
          done(error instanceof Error ? error : new Error(String(error)));
        },
      );
    },
  });
  const run = await runAuditCli(args, env(prefix, extra), { stdout });
  return { ...run, stdout: Buffer.concat(chunks).toString(), auditAtFirstLine };
}

/** A result and a dead letter naming the person (key, params, the vendor's answer). */
async function writeMessages(prefix: string): Promise<void> {
  const names = topicNames(prefix);
  const params = { taxId: person };
  await publish(stack.kafka, names.result('lawsuits-summary'), [
    {
      key: person,
      value: {
        requestId: 'read-1',
        operation: 'lawsuits-summary',
        status: 'ok',
        params,
        response: { name, cpf: person },
      },
    },
  ]);
  await publish(stack.kafka, names.errors, [
    {
      key: person,
      value: {
        requestId: 'read-2',
        operation: 'lawsuits-summary',
        attempts: 1,
        failedAt: new Date().toISOString(),
        error: { kind: 'upstream_unavailable', message: 'crafted', retryable: true },
        request: { requestId: 'read-2', params },
        origin: { topic: names.request('lawsuits-summary'), partition: 0, offset: '0' },
      },
    },
  ]);
}

beforeAll(async () => {
  admin = await stack.admin();
  for (const prefix of prefixes) {
    const names = topicNames(prefix);
    await createTopicsReady(admin, [
      names.result('lawsuits-summary'),
      names.errors,
      names.request('lawsuits-summary'),
    ]);
    await writeMessages(prefix);
  }
  await createTopicsReady(admin, [topicNames(written).audit]);
  await admin.createTopics({
    topics: [
      {
        topic: topicNames(refusing).audit,
        numPartitions: 1,
        replicationFactor: 1,
        configEntries: [{ name: 'max.message.bytes', value: '1' }],
      },
    ],
  });
});

afterAll(async () => {
  const topics = (await admin.listTopics()).filter((t) => prefixes.some((p) => t.startsWith(`${p}.`)));
  await admin.deleteTopics({ topics }).catch(() => undefined);
});

describe('a read of personal data by a person is audited before it is shown (issue 50, 12)', () => {
  it('replay writes replay-started naming the actor before its first line, then replay with its count', async () => {
    const results = topicNames(written).result('lawsuits-summary');
    const before = (await auditEvents(written)).length;
    const run = await held(['replay', '--topic', results, '--actor', 'maria.souza'], written);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain(person);
    expect(run.stdout).toContain(name);
    expect(run.auditAtFirstLine?.slice(before).map((e) => [e.action, e.actor])).toEqual([
      ['replay-started', 'maria.souza'],
    ]);
    const events = (await auditEvents(written)).slice(before);
    const target = { topics: [results], output: 'stdout' };
    expect(events).toEqual([
      {
        action: 'replay-started',
        actor: 'maria.souza',
        role: 'cli',
        target,
        messages: 1,
        at: expect.any(String) as string,
      },
      {
        action: 'replay',
        actor: 'maria.souza',
        role: 'cli',
        target,
        count: 1,
        at: expect.any(String) as string,
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(person);
    // Reading the audit topic shows no personal data: it adds no event.
    expect(await auditEvents(written)).toHaveLength(before + 2);
  });

  it("replay's trail of a request: the actor from AUDIT_ACTOR, the topics and the requestId, not the key filter's value", async () => {
    const names = topicNames(written);
    const before = (await auditEvents(written)).length;
    const run = await held(['replay', '--request-id', 'read-2', '--key', person], written, {
      AUDIT_ACTOR: 'ana.lima',
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.auditAtFirstLine?.slice(before).map((e) => e.action)).toEqual(['replay-started']);
    const [started, ended] = (await auditEvents(written)).slice(before);
    expect(started).toMatchObject({
      action: 'replay-started',
      actor: 'ana.lima',
      target: { requestId: 'read-2', keyFilter: true, output: 'stdout' },
    });
    expect(started?.action === 'replay-started' ? [...started.target.topics].sort() : []).toEqual(
      [names.errors, names.result('lawsuits-summary'), names.request('lawsuits-summary')].sort(),
    );
    expect(ended).toMatchObject({ action: 'replay', actor: 'ana.lima', count: 1 });
    expect(JSON.stringify([started, ended])).not.toContain(person);
  });

  it('redrive --dry-run --show-keys writes redrive-keys-shown before its first line; masked keys need none', async () => {
    const before = (await auditEvents(written)).length;
    const masked = await held(['redrive', '--dry-run', '--actor', 'maria.souza'], written);
    expect(masked.code, masked.stderr).toBe(0);
    expect(masked.stdout).not.toContain(person);
    expect(await auditEvents(written)).toHaveLength(before);

    const shown = await held(['redrive', '--dry-run', '--show-keys', '--actor', 'maria.souza'], written);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(person);
    expect(shown.auditAtFirstLine?.slice(before).map((e) => [e.action, e.actor])).toEqual([
      ['redrive-keys-shown', 'maria.souza'],
    ]);
    const events = (await auditEvents(written)).slice(before);
    expect(events).toEqual([
      {
        action: 'redrive-keys-shown',
        actor: 'maria.souza',
        role: 'cli',
        dryRun: true,
        target: {},
        messages: 1,
        at: expect.any(String) as string,
      },
    ]);
    expect(JSON.stringify(events)).not.toContain(person);
  });
});

describe('when the audit event cannot be written, nothing is shown (issue 50, 12)', () => {
  const reads: [string, (prefix: string) => string[]][] = [
    ['replay of a topic', (p) => ['replay', '--topic', topicNames(p).result('lawsuits-summary')]],
    ['replay of a trail', () => ['replay', '--request-id', 'read-2']],
    ['redrive --dry-run --show-keys', () => ['redrive', '--dry-run', '--show-keys']],
    ['redrive --show-keys', () => ['redrive', '--show-keys']],
  ];

  it.each(reads)(
    '%s: exit 7, one line, no output, nothing sent, on an audit topic that refuses events',
    async (_, args) => {
      const run = await runAuditCli(args(refusing), env(refusing, { AUDIT_ACTOR: 'maria.souza' }));
      const command = args(refusing)[0] ?? '';
      expect([run.code, run.stdout]).toEqual([7, '']);
      expect(run.stderr).toMatch(
        new RegExp(
          `^${command}: the audit event could not be written to ${topicNames(refusing).audit.replace(/\./g, '\\.')} \\(.*too large.*\\): nothing was shown or sent\\n$`,
          'i',
        ),
      );
      expect(run.stderr).not.toContain(person);
      const requests = await admin.fetchTopicOffsets(topicNames(refusing).request('lawsuits-summary'));
      expect(requests.map((p) => p.high)).toEqual(['0']);
    },
  );

  it('a missing audit topic: exit 7 at once, and an --out file is not written', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'audit-reads-')), 'export.jsonl');
    const run = await runAuditCli(
      ['replay', '--topic', topicNames(missing).errors, '--out', out],
      env(missing, { AUDIT_ACTOR: 'maria.souza' }),
    );
    expect([run.code, run.stdout]).toEqual([7, '']);
    expect(run.stderr).toMatch(
      /^replay: the audit event could not be written to .*\(the topic does not exist\)/,
    );
    expect(existsSync(out)).toBe(false);
  });
});
