import { normalizeSubject, subjectOfKey, subjectsOfParams, type DataSubject } from '../at-rest/subjects.js';
import { kindsReadBy } from '../contract/topics.js';
import { AuditError } from './errors.js';
import { member, type DecodedRecord } from './records.js';
import { scan, type AuditContext } from './scan.js';
import { cnpjProblem, isValidCnpj } from '../contract/documents/cnpj.js';
import { cpfProblem, isValidCpf } from '../contract/documents/cpf.js';
import { plateProblem } from '../contract/documents/plate.js';

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
  // Checked as the service checks a request's params (shape and check digits), never echoed:
  // an erase of an identifier no request could have named would find nothing and say it erased.
  if (flags.taxId !== undefined) {
    const raw = flags.taxId.trim();
    const problem = isValidCpf(raw) || isValidCnpj(raw) ? undefined : taxIdProblem(raw);
    if (problem !== undefined) throw new AuditError('BAD_ARGUMENTS', `--tax-id ${problem}`);
    return { kind: 'tax-id', value: normalizeSubject('tax-id', raw) };
  }
  const raw = (flags.plate ?? '').trim();
  const problem = plateProblem(raw);
  if (problem !== undefined) throw new AuditError('BAD_ARGUMENTS', `--plate ${problem}`);
  return { kind: 'plate', value: normalizeSubject('plate', raw) };
}

/** Why a --tax-id is neither a CPF nor a CNPJ: the problem of the one its length suggests. */
function taxIdProblem(raw: string): string {
  const letters = raw.replace(/[^0-9A-Za-z]/g, '');
  const problem = letters.length <= 11 ? cpfProblem(raw) : cnpjProblem(raw);
  return `is not a valid ${letters.length <= 11 ? 'CPF' : 'CNPJ'}: ${problem ?? 'invalid'}`;
}
