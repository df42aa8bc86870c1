import { Partitioners, type Kafka, type Producer } from 'kafkajs';
import type { Logger } from 'pino';

/**
 * What the console did with its power: every reveal and redrive, by role, what, when and how
 * many, written to `<prefix>.audit` and to the log. Never personal data: dead letters are named
 * by their coordinates, filters by what they narrow, not by their values.
 */
export interface ConsoleAuditEvent {
  action: 'reveal' | 'redrive';
  role: 'operator' | 'read-only';
  /** The dead letters or the filter acted on. */
  target: Record<string, unknown>;
  count: number;
  at: string;
}

export interface AuditLog {
  write(event: ConsoleAuditEvent): Promise<void>;
  close(): Promise<void>;
}

export function auditTopic(prefix: string): string {
  return `${prefix}.audit`;
}

export function kafkaAuditLog(kafka: Pick<Kafka, 'producer'>, prefix: string, logger: Logger): AuditLog {
  let producer: Producer | undefined;
  const connected = async (): Promise<Producer> => {
    if (producer) return producer;
    const created = kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    await created.connect();
    producer = created;
    return created;
  };
  return {
    async write(event) {
      logger.info({ audit: event }, `console ${event.action}`);
      const p = await connected();
      await p.send({
        topic: auditTopic(prefix),
        acks: -1,
        messages: [
          {
            key: event.action,
            value: JSON.stringify(event),
            headers: { 'content-type': 'application/json' },
          },
        ],
      });
    },
    async close() {
      await producer?.disconnect();
    },
  };
}
