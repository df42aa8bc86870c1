import { normalizeSubject, subjectOfKey, subjectsOfParams, type DataSubject } from '../at-rest/subjects.js';
import { kindsReadBy } from '../contract/topics.js';
import { AuditError } from './errors.js';
import { member, type DecodedRecord } from './records.js';
import { scan, type AuditContext } from './scan.js';

/**
 * Where Kafka still holds a data subject's messages within retention: every topic that the
 * table of topics says `erase` reads (contract/topics.ts: each one holding personal data), read
 * whole with replay's reader, keeping the messages whose key is the subject's tax id or plate
 * or whose params (a request's, a result's, a dead letter's request's) name it. Kafka cannot
 * delete one message: the operator acts on these ranges (kafka-delete-records up to an offset,
 * or waits for retention).
 */
export interface RetainedRange {
  topic: string;
  partition: number;
  /** First and last offset (inclusive) of the subject's messages in the partition. */
  firstOffset: string;
  lastOffset: string;
  messages: number;
}

const ERASE_KINDS = kindsReadBy('erase');

export function holdsSubject(record: DecodedRecord, subject: DataSubject): boolean {
  const same = (s: DataSubject | undefined): boolean => s?.kind === subject.kind && s.value === subject.value;
  if (record.key !== null && same(subjectOfKey(record.key))) return true;
  const params = member(record.value, 'params') ?? member(member(record.value, 'request'), 'params');
  return subjectsOfParams(params).some(same);
}

export async function retainedRanges(ctx: AuditContext, subject: DataSubject): Promise<RetainedRange[]> {
  const byPartition = new Map<string, RetainedRange>();
  try {
    await scan(ctx, {
      selection: { kinds: ERASE_KINDS, operations: undefined, lenient: true },
      window: { kind: 'time' },
      filter: {},
      onMatch: (record) => {
        if (holdsSubject(record, subject)) {
          const { topic, partition, offset } = record.source;
          const id = `${topic}/${partition}`;
          const range = byPartition.get(id);
          if (range) {
            range.lastOffset = offset;
            range.messages += 1;
          } else
            byPartition.set(id, { topic, partition, firstOffset: offset, lastOffset: offset, messages: 1 });
        }
        return Promise.resolve();
      },
    });
  } catch (error) {
    // Nothing written to any topic of the prefix: nothing retained.
    if (error instanceof AuditError && error.code === 'EMPTY_WINDOW') return [];
    throw error;
  }
  return [...byPartition.values()].sort((a, b) =>
    a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
  );
}

/** An identifier for the screen: its last two characters. */
export function maskSubject(subject: DataSubject): string {
  const shown = subject.value.slice(-2);
  return `${'•'.repeat(Math.max(subject.value.length - 2, 3))}${shown}`;
}

export function parseSubject(flags: { taxId?: string; plate?: string }): DataSubject {
  const given = [flags.taxId, flags.plate].filter((v) => v !== undefined);
  if (given.length !== 1) throw new AuditError('BAD_ARGUMENTS', 'give exactly one of --tax-id and --plate');
  const subject: DataSubject =
    flags.taxId !== undefined
      ? { kind: 'tax-id', value: normalizeSubject('tax-id', flags.taxId) }
      : { kind: 'plate', value: normalizeSubject('plate', flags.plate ?? '') };
  const valid = subject.kind === 'tax-id' ? /^(\d{11}|\d{14})$/ : /^[A-Z0-9]{7}$/;
  if (!valid.test(subject.value)) {
    throw new AuditError(
      'BAD_ARGUMENTS',
      subject.kind === 'tax-id'
        ? '--tax-id must be a CPF (11 digits) or a CNPJ (14)'
        : '--plate must be 7 letters and digits',
    );
  }
  return subject;
}
