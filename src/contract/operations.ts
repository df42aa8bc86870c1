import { forOperation, LANES, requestRow, type Lane, type TopicName } from './topics.js';

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
  // Names typed by the table (TopicName): one it does not hold does not compile.
  const named = (name: TopicName, operation?: Operation): string =>
    `${prefix}.${forOperation(name, operation)}`;
  const request = (operation: Operation, lane: Lane = 'interactive'): string =>
    `${prefix}.${forOperation(requestRow(lane).name, operation)}`;
  const requestTopics = new Map(
    OPERATIONS.flatMap((operation) =>
      LANES.map((lane) => [request(operation, lane), { operation, lane }] as const),
    ),
  );
  // A copy: callers own what they are handed, as when it was parsed from the name.
  const laneOfRequestTopic = (topic: string): { operation: Operation; lane: Lane } | undefined => {
    const found = requestTopics.get(topic);
    return found && { ...found };
  };
  return {
    prefix,
    request,
    requestTopics: () => [...requestTopics.keys()],
    result: (operation) => named('results.{operation}', operation),
    errors: named('errors'),
    vehicleSearchEvents: named('events.vehicle-search'),
    audit: named('audit'),
    operationOfRequestTopic: (topic) => laneOfRequestTopic(topic)?.operation,
    laneOfRequestTopic,
  };
}
