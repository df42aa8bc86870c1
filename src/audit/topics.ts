import { OPERATIONS, type Operation, type TopicNames } from '../contract/operations.js';
import {
  forOperation,
  kindsReadBy,
  perOperation,
  TOPICS,
  type TopicKind as AnyTopicKind,
  type TopicRow,
} from '../contract/topics.js';
import { AuditError, badArguments } from './errors.js';

/**
 * Which topics to read: full names, or kinds of the contract's topics under the prefix: the
 * kinds the table of topics (contract/topics.ts) says `replay` reads. An operation narrows a
 * per-operation kind to its topics (the requests kind: both lanes); the errors and events
 * topics are shared by all operations. The audit topic is read by name.
 */
export const TOPIC_KINDS = kindsReadBy('replay');
export type TopicKind = (typeof TOPIC_KINDS)[number];

export interface TopicSelection {
  names?: readonly string[] | undefined;
  /** `--kind` takes replay's kinds; erase and redrive select the kinds the table says they read. */
  kinds?: readonly AnyTopicKind[] | undefined;
  operations?: readonly Operation[] | undefined;
  /** Take whichever of the kinds' topics exist (the trail of a request looks everywhere). */
  lenient?: boolean;
}

/**
 * The topics to read, each existing. A topic named outright, or by kind and operation, must
 * exist; a kind without operation takes those of its topics that exist (a deployment may not
 * have created them all) and fails only when none does. Reading never creates a topic.
 */
export function selectTopics(
  topics: TopicNames,
  selection: TopicSelection,
  existing: ReadonlySet<string>,
): string[] {
  const names = selection.names ?? [];
  const kinds = selection.kinds ?? [];
  if (names.length === 0 && kinds.length === 0) {
    throw badArguments(`choose what to read: --topic <name> or --kind <${TOPIC_KINDS.join('|')}>`);
  }
  const chosen = new Set<string>();
  const requireExisting = (topic: string): void => {
    if (!existing.has(topic)) throw new AuditError('UNKNOWN_TOPIC', `unknown topic: ${topic}`);
    chosen.add(topic);
  };
  names.forEach(requireExisting);
  const lenient = selection.lenient === true;
  for (const kind of kinds) {
    const candidates = topicsOfKind(topics, kind, selection.operations);
    if (candidates.explicit && !lenient) {
      candidates.topics.forEach(requireExisting);
      candidates.ifPresent?.filter((t) => existing.has(t)).forEach((t) => chosen.add(t));
    } else {
      const present = candidates.topics.filter((t) => existing.has(t));
      if (present.length === 0 && !lenient) {
        throw new AuditError(
          'UNKNOWN_TOPIC',
          `no ${kind} topic exists (looked for ${candidates.topics.join(', ')})`,
        );
      }
      present.forEach((t) => chosen.add(t));
    }
  }
  if (chosen.size === 0) {
    throw new AuditError('UNKNOWN_TOPIC', `none of the ${kinds.join(', ')} topics exists`);
  }
  return [...chosen];
}

function topicsOfKind(
  topics: TopicNames,
  kind: AnyTopicKind,
  operations: readonly Operation[] | undefined,
): { topics: string[]; explicit: boolean; ifPresent?: string[] } {
  const ops = operations && operations.length > 0 ? operations : undefined;
  const rows = TOPICS.filter((row) => row.kind === kind);
  const named = (row: TopicRow, operation?: Operation): string => nameOf(topics, row, operation);
  const shared = rows.filter((row) => !perOperation(row));
  if (shared.length > 0) return { topics: shared.map((row) => named(row)), explicit: true };
  if (!ops) {
    return { topics: OPERATIONS.flatMap((op) => rows.map((row) => named(row, op))), explicit: false };
  }
  // An operation named outright needs its interactive topic; its other lanes are read when they
  // exist (a deployment from before the lanes has none).
  const [first, ...others] = rows;
  return {
    topics: first ? ops.map((op) => named(first, op)) : [],
    explicit: true,
    ...(others.length > 0 ? { ifPresent: ops.flatMap((op) => others.map((row) => named(row, op))) } : {}),
  };
}

function nameOf(topics: TopicNames, row: TopicRow, operation?: Operation): string {
  return `${topics.prefix}.${forOperation(row.name, operation)}`;
}

/**
 * Whether any of `read` may hold personal data: every topic may, but those of the prefix whose
 * row in the table of topics says they hold none (the audit topic). A topic outside the table
 * may hold anything.
 */
export function mayHoldPersonalData(topics: TopicNames, read: readonly string[]): boolean {
  const clear = new Set(
    TOPICS.filter((row) => !row.personalData).flatMap((row) =>
      perOperation(row) ? OPERATIONS.map((op) => nameOf(topics, row, op)) : [nameOf(topics, row)],
    ),
  );
  return read.some((topic) => !clear.has(topic));
}
