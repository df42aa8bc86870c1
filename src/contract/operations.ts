import { forOperation, LANES, topicRow, type Lane, type TopicKind } from './topics.js';

/** The operations of the Kafka contract, one request topic each (shared/contract.md, "Operations"). */
export const OPERATIONS = [
  'classify-document',
  'face-document-lookup',
  'lawsuits-by-party',
  'lawsuits-summary',
  'lawsuit-by-number',
  'vehicle',
  'vehicle-async',
  'state-registration',
  'company-partners',
  'esocial-eligibility',
] as const;
export type Operation = (typeof OPERATIONS)[number];

export function isOperation(value: string): value is Operation {
  return (OPERATIONS as readonly string[]).includes(value);
}

export { LANES, type Lane } from './topics.js';

const BULK_SUFFIX = forOperation(topicRow('requests', 'bulk').name, '').replace(
  forOperation(topicRow('requests', 'interactive').name, ''),
  '',
);

export interface TopicNames {
  /** TOPIC_PREFIX: every name is `<prefix>.<its row's name>` (contract/topics.ts). */
  prefix: string;
  /** The request topic of an operation's lane (interactive when no lane is given). */
  request(operation: Operation, lane?: Lane): string;
  /** Every request topic: each operation's interactive and bulk lanes. */
  requestTopics(): string[];
  result(operation: Operation): string;
  errors: string;
  vehicleSearchEvents: string;
  /** The operator console's audit events (contract/audit-events.ts). */
  audit: string;
  /** The operation a request topic belongs to, or undefined for any other topic. */
  operationOfRequestTopic(topic: string): Operation | undefined;
  /** The operation and lane of a request topic, or undefined for any other topic. */
  laneOfRequestTopic(topic: string): { operation: Operation; lane: Lane } | undefined;
}

/** The contract's topic names under `prefix`, from the table of topics (contract/topics.ts). */
export function topicNames(prefix: string): TopicNames {
  const named = (kind: TopicKind, lane?: Lane, operation?: Operation): string =>
    `${prefix}.${forOperation(topicRow(kind, lane).name, operation)}`;
  const requestPrefix = `${prefix}.${forOperation(topicRow('requests', 'interactive').name, '')}`;
  const request = (operation: Operation, lane: Lane = 'interactive'): string =>
    named('requests', lane, operation);
  const laneOfRequestTopic = (topic: string): { operation: Operation; lane: Lane } | undefined => {
    if (!topic.startsWith(requestPrefix)) return undefined;
    const rest = topic.slice(requestPrefix.length);
    const lane: Lane = rest.endsWith(BULK_SUFFIX) ? 'bulk' : 'interactive';
    const operation = lane === 'bulk' ? rest.slice(0, -BULK_SUFFIX.length) : rest;
    return isOperation(operation) ? { operation, lane } : undefined;
  };
  return {
    prefix,
    request,
    requestTopics: () => OPERATIONS.flatMap((op) => LANES.map((lane) => request(op, lane))),
    result: (operation) => named('results', undefined, operation),
    errors: named('errors'),
    vehicleSearchEvents: named('events'),
    audit: named('audit'),
    operationOfRequestTopic: (topic) => laneOfRequestTopic(topic)?.operation,
    laneOfRequestTopic,
  };
}
