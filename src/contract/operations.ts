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

export interface TopicNames {
  request(operation: Operation): string;
  result(operation: Operation): string;
  errors: string;
  vehicleSearchEvents: string;
  /** The operator console's audit events (contract/audit-events.ts). */
  audit: string;
  /** The operation a request topic belongs to, or undefined for any other topic. */
  operationOfRequestTopic(topic: string): Operation | undefined;
}

export function topicNames(prefix: string): TopicNames {
  const requestPrefix = `${prefix}.requests.`;
  return {
    request: (operation) => `${requestPrefix}${operation}`,
    result: (operation) => `${prefix}.results.${operation}`,
    errors: `${prefix}.errors`,
    vehicleSearchEvents: `${prefix}.events.vehicle-search`,
    audit: `${prefix}.audit`,
    operationOfRequestTopic(topic) {
      if (!topic.startsWith(requestPrefix)) return undefined;
      const operation = topic.slice(requestPrefix.length);
      return isOperation(operation) ? operation : undefined;
    },
  };
}
