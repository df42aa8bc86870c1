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

/**
 * The request lanes of an operation (shared/contract.md, "Lanes"): `interactive` (a person is
 * waiting) is `<prefix>.requests.<operation>`, `bulk` (backfills, re-checks) the same name with
 * `.bulk` appended. A request's lane is known from the topic it came from.
 */
export const LANES = ['interactive', 'bulk'] as const;
export type Lane = (typeof LANES)[number];

const BULK_SUFFIX = '.bulk';

export interface TopicNames {
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

export function topicNames(prefix: string): TopicNames {
  const requestPrefix = `${prefix}.requests.`;
  const request = (operation: Operation, lane: Lane = 'interactive'): string =>
    `${requestPrefix}${operation}${lane === 'bulk' ? BULK_SUFFIX : ''}`;
  const laneOfRequestTopic = (topic: string): { operation: Operation; lane: Lane } | undefined => {
    if (!topic.startsWith(requestPrefix)) return undefined;
    const rest = topic.slice(requestPrefix.length);
    const lane: Lane = rest.endsWith(BULK_SUFFIX) ? 'bulk' : 'interactive';
    const operation = lane === 'bulk' ? rest.slice(0, -BULK_SUFFIX.length) : rest;
    return isOperation(operation) ? { operation, lane } : undefined;
  };
  return {
    request,
    requestTopics: () => OPERATIONS.flatMap((op) => LANES.map((lane) => request(op, lane))),
    result: (operation) => `${prefix}.results.${operation}`,
    errors: `${prefix}.errors`,
    vehicleSearchEvents: `${prefix}.events.vehicle-search`,
    audit: `${prefix}.audit`,
    operationOfRequestTopic: (topic) => laneOfRequestTopic(topic)?.operation,
    laneOfRequestTopic,
  };
}
