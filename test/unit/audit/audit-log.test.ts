import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Kafka, Message, ProducerConstructorConfig } from '../../../src/kafka/client.js';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { kafkaAuditLog, type ConsoleAuditEvent } from '../../../src/audit/audit-log.js';
import { recordingKafka } from '../../helpers/recording-kafka.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const published = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'schemas', 'audit.json'), 'utf8'),
) as object;
const validate = addFormats(new Ajv({ strict: false })).compile(published);

const at = '2026-11-23T01:02:03.456Z';
const redrive: ConsoleAuditEvent = {
  action: 'redrive',
  actor: 'maria.souza',
  role: 'operator',
  target: {
    from: '2026-11-23T00:00:00.000Z',
    to: '2026-11-23T01:00:00.000Z',
    operation: 'lawsuits-summary',
    kind: 'upstream_unavailable',
    keyFilter: true,
    deadLetters: ['0/17', '2/4'],
  },
  count: 2,
  at,
};
const reveal: ConsoleAuditEvent = {
  action: 'reveal',
  actor: 'maria.souza',
  role: 'operator',
  target: { deadLetter: 'p.errors/1/42' },
  count: 1,
  at,
};

describe('the console audit log', () => {
  it('writes each event to <prefix>.audit keyed by its action, as the published schema describes it', async () => {
    const { kafka, sent } = recordingKafka();
    const log = kafkaAuditLog(kafka, 'p', pino({ level: 'silent' }));
    await log.write(reveal);
    await log.write(redrive);
    expect(sent.map((r) => r.topic)).toEqual(['p.audit', 'p.audit']);
    const messages = sent.flatMap((r) => r.messages);
    expect(messages.map((m: Message) => m.key)).toEqual(['reveal', 'redrive']);
    for (const m of messages) {
      const value: unknown = JSON.parse(String(m.value));
      expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(JSON.parse(String(messages[1]?.value))).toEqual(redrive);
  });

  it('writes through one idempotent producer, acknowledged by every in-sync replica, as JSON', async () => {
    const recording = recordingKafka();
    const configs: (ProducerConstructorConfig | undefined)[] = [];
    const kafka: Pick<Kafka, 'producer'> = {
      producer: (config) => {
        configs.push(config);
        return recording.kafka.producer(config);
      },
    };
    const log = kafkaAuditLog(kafka, 'p', pino({ level: 'silent' }));
    await log.write(reveal);
    await log.write(reveal);
    await log.close();
    expect(configs).toEqual([{ kafkaJS: { idempotent: true, acks: -1, allowAutoTopicCreation: false } }]);
    expect(recording.sent.flatMap((r) => r.messages.map((m) => m.headers))).toEqual([
      { 'content-type': 'application/json' },
      { 'content-type': 'application/json' },
    ]);
  });

  it('refuses, and never sends, an event with a field the contract does not know (a key, a tax id)', async () => {
    const { kafka, sent } = recordingKafka();
    const log = kafkaAuditLog(kafka, 'p', pino({ level: 'silent' }));
    const leaking = { ...redrive, target: { ...redrive.target, key: '52998224725' } };
    await expect(log.write(leaking as ConsoleAuditEvent)).rejects.toThrow(/key/);
    const named = { ...reveal, target: { deadLetter: 'p.errors/1/42', taxId: '52998224725' } };
    await expect(log.write(named as ConsoleAuditEvent)).rejects.toThrow(/taxId/);
    expect(sent).toEqual([]);
  });

  it('refuses a reveal that names no dead letter by its coordinates', async () => {
    const { kafka, sent } = recordingKafka();
    const log = kafkaAuditLog(kafka, 'p', pino({ level: 'silent' }));
    const byText = { ...reveal, target: { deadLetter: 'Maria Silva' } };
    await expect(log.write(byText)).rejects.toThrow();
    expect(sent).toEqual([]);
  });

  it('refuses an event without its actor, or with a token-like actor (issue 39, N4)', async () => {
    const { kafka, sent } = recordingKafka();
    const log = kafkaAuditLog(kafka, 'p', pino({ level: 'silent' }));
    const { actor: _actor, ...anonymous } = reveal;
    await expect(log.write(anonymous as ConsoleAuditEvent)).rejects.toThrow(/actor/);
    await expect(log.write({ ...reveal, actor: 'name:operator:token' })).rejects.toThrow(/actor/);
    expect(sent).toEqual([]);
  });

  it('takes the CLI redrive and the key search, as the published schema describes them', async () => {
    const { kafka, sent } = recordingKafka();
    const log = kafkaAuditLog(kafka, 'p', pino({ level: 'silent' }));
    await log.write({
      action: 'redrive-started',
      actor: 'ana',
      role: 'cli',
      target: {
        offsets: { partition: 0, fromOffset: 3 },
        operations: ['vehicle', 'vehicle-async'],
        keyFilter: true,
      },
      at,
    });
    await log.write({
      action: 'dead-letter-search',
      actor: 'maria.souza',
      role: 'operator',
      target: { from: '2026-11-23T00:00:00.000Z', keyFilter: true },
      count: 3,
      at,
    });
    for (const m of sent.flatMap((r) => r.messages)) {
      expect(validate(JSON.parse(String(m.value))), JSON.stringify(validate.errors)).toBe(true);
    }
  });
});
