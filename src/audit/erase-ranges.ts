import { normalizeSubject, subjectOfKey, subjectsOfParams, type DataSubject } from '../at-rest/subjects.js';
import { kindsReadBy } from '../contract/topics.js';
import { AuditError, incompleteRead } from './errors.js';
import { recordHolds, subjectPattern } from './erase-match.js';
import { member, type DecodedRecord } from './records.js';
import { scan, type AuditContext, type ScanSummary } from './scan.js';
import { cnpjProblem, isValidCnpj } from '../contract/documents/cnpj.js';
import { cpfProblem, isValidCpf } from '../contract/documents/cpf.js';
import { plateProblem } from '../contract/documents/plate.js';

/**
 * Where Kafka still holds a data subject's messages within retention: every topic that the
 * table of topics says `erase` reads (contract/topics.ts: each one holding personal data), read
 * whole with replay's reader, keeping each message that holds the subject's identifier: its
 * key or params name it (read as the service reads them), or a search of its bytes finds it in
 * any of its textual forms (erase-match.ts: metadata, vendor answers, raw bytes of requests that
 * could not be read, dead letters' `raw`). Kafka cannot delete one message: the operator acts
 * on these ranges (kafka-delete-records up to an offset, or waits for retention).
 */
export interface RetainedRange {
  topic: string;
  partition: number;
  /** First and last offset (inclusive) of the subject's messages in the partition. */
  firstOffset: string;
  lastOffset: string;
  messages: number;
  /** The offset of each of them, in order. */
  offsets: string[];
}

export interface Retained {
  ranges: RetainedRange[];
  /**
   * The requestIds those messages carry: the values Redis keeps by requestId for them (paid
   * outcomes, pending searches) hold the subject's data too, whether or not the subject index
   * lists them under the subject.
   */
  requestIds: string[];
}

const ERASE_KINDS = kindsReadBy('erase');

export function holdsSubject(record: DecodedRecord, subject: DataSubject): boolean {
  const same = (s: DataSubject | undefined): boolean => s?.kind === subject.kind && s.value === subject.value;
  if (record.key !== null && same(subjectOfKey(record.key))) return true;
  const params = member(record.value, 'params') ?? member(member(record.value, 'request'), 'params');
  return subjectsOfParams(params).some(same);
}

/**
 * Reads every message of the topics `erase` reads; rejects with INCOMPLETE when a partition
 * stopped short of its end or the read was interrupted: what it found is then no complete list.
 */
export async function findRetained(ctx: AuditContext, subject: DataSubject): Promise<Retained> {
  const byPartition = new Map<string, RetainedRange>();
  const requestIds = new Set<string>();
  const pattern = subjectPattern(subject);
  let summary: ScanSummary;
  try {
    summary = await scan(ctx, {
      selection: { kinds: ERASE_KINDS, operations: undefined, lenient: true },
      window: { kind: 'time' },
      filter: {},
      onMatch: (record) => {
        if (holdsSubject(record, subject) || recordHolds(record.source, pattern)) {
          const requestId = member(record.value, 'requestId');
          if (typeof requestId === 'string' && requestId !== '') requestIds.add(requestId);
          const { topic, partition, offset } = record.source;
          const id = `${topic}/${partition}`;
          const range = byPartition.get(id);
          if (range) {
            range.lastOffset = offset;
            range.messages += 1;
            range.offsets.push(offset);
          } else
            byPartition.set(id, {
              topic,
              partition,
              firstOffset: offset,
              lastOffset: offset,
              messages: 1,
              offsets: [offset],
            });
        }
        return Promise.resolve();
      },
    });
  } catch (error) {
    // Nothing written to any topic of the prefix: nothing retained.
    if (error instanceof AuditError && error.code === 'EMPTY_WINDOW') return { ranges: [], requestIds: [] };
    throw error;
  }
  const ranges = [...byPartition.values()].sort((a, b) =>
    a.topic === b.topic ? a.partition - b.partition : a.topic < b.topic ? -1 : 1,
  );
  const found = `${ranges.reduce((n, r) => n + r.messages, 0)} message(s) found so far`;
  const incomplete = incompleteRead(summary, found);
  if (incomplete) throw incomplete;
  if (summary.reader.aborted) throw new AuditError('INCOMPLETE', `interrupted: ${found}`);
  return { ranges, requestIds: [...requestIds].sort() };
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
