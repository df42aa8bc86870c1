import { idempotentProducer, type Kafka, type Producer } from '../kafka/client.js';
import type { Logger } from 'pino';
import { consoleAuditEventSchema, type ConsoleAuditEvent } from '../contract/audit-events.js';
import { topicNames } from '../contract/operations.js';

/**
 * What the console did with its power: every reveal and redrive, written to `<prefix>.audit`
 * and to the log. The event's shape, and what keeps personal data out of it, is the contract's
 * (src/contract/audit-events.ts): each event is checked against it before it is written.
 */
export type { ConsoleAuditEvent } from '../contract/audit-events.js';

export interface AuditLog {
  write(event: ConsoleAuditEvent): Promise<void>;
  close(): Promise<void>;
}

export function auditTopic(prefix: string): string {
  return topicNames(prefix).audit;
}

export function kafkaAuditLog(kafka: Pick<Kafka, 'producer'>, prefix: string, logger: Logger): AuditLog {
  let producer: Producer | undefined;
  const connected = async (): Promise<Producer> => {
    if (producer) return producer;
    const created = idempotentProducer(kafka);
    await created.connect();
    producer = created;
    return created;
  };
  return {
    async write(given) {
      // Throws on a field the contract does not know: a bug, never written to the topic.
      const event = consoleAuditEventSchema.parse(given);
      // Who acted is on the audit topic; the log keeps the action and its role.
      const { actor: _actor, ...logged } = event;
      logger.info({ audit: logged }, `console ${event.action}`);
      const p = await connected();
      await p.send({
        topic: auditTopic(prefix),
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
