import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Message } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { kafkaAuditLog, type ConsoleAuditEvent } from '../../../src/console/audit-log.js';
import { recordingKafka } from '../../helpers/recording-kafka.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const published = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'schemas', 'audit.json'), 'utf8'),
) as object;
const validate = addFormats(new Ajv({ strict: false })).compile(published);

const at = '2026-11-23T01:02:03.456Z';
const redrive: ConsoleAuditEvent = {
  action: 'redrive',
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
});
