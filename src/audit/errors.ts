import { CommandError } from '../errors.js';
import type { ScanSummary } from './scan.js';

/**
 * Failures of the audit commands that the user can fix: each ends the command with one line
 * naming the problem and a distinct exit code (scripts can tell a typo from an outage).
 */
export const AUDIT_ERROR_CODES = {
  /** Flags that contradict each other, a malformed time, a reversed or empty window. */
  BAD_ARGUMENTS: 2,
  /** A topic that does not exist (never auto-created by reading). */
  UNKNOWN_TOPIC: 3,
  /** The window resolved to no offset at all: nothing was written between its bounds. */
  EMPTY_WINDOW: 4,
  /** Kafka or the schema registry did not answer within the connection timeout. */
  UNREACHABLE: 5,
  /**
   * A partition stopped short of its window's end (no progress within the idle timeout:
   * records deleted while reading, a broker gone): what was read is no complete audit.
   */
  INCOMPLETE: 6,
  /**
   * The audit event a command writes before it acts (shows personal data, sends a request,
   * erase's `erase-started`) could not be written to `<prefix>.audit`: it did nothing (fail closed).
   */
  AUDIT_UNWRITABLE: 7,
} as const;
export type AuditErrorCode = keyof typeof AUDIT_ERROR_CODES;

export class AuditError extends CommandError {
  readonly exitCode: number;

  constructor(
    readonly code: AuditErrorCode,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.exitCode = AUDIT_ERROR_CODES[code];
  }
}

export function badArguments(message: string): AuditError {
  return new AuditError('BAD_ARGUMENTS', message);
}

/** The read stopped short on some partition: an error once the summary has been said. */
export function incompleteRead(summary: ScanSummary, said: string): AuditError | undefined {
  const { unfinished, aborted } = summary.reader;
  if (aborted || unfinished.length === 0) return undefined;
  const where = unfinished.map((p) => `${p.topic}/${String(p.partition)} at ${String(p.offset)}`).join(', ');
  return new AuditError('INCOMPLETE', `incomplete: ${said}; stopped short on ${where}`);
}
