/**
 * The request lanes of an operation (shared/contract.md, "Lanes"): `interactive` (a person is
 * waiting) is `<prefix>.requests.<operation>`, `bulk` (backfills, re-checks) the same name with
 * `.bulk` appended. A request's lane is known from the topic it came from.
 */
export const LANES = ['interactive', 'bulk'] as const;
export type Lane = (typeof LANES)[number];

/** The kinds of topic the audit commands read by (`--kind`); the audit topic is read by name. */
export const TOPIC_KINDS = ['requests', 'results', 'errors', 'events'] as const;
export type TopicKind = (typeof TOPIC_KINDS)[number] | 'audit';

/** Which retention setting a topic the service creates gets (REQUEST_, OUTPUT_, AUDIT_RETENTION_MS). */
export type RetentionClass = 'request' | 'output' | 'audit';

/** The values' schema, by name: src/contract/json-schemas.ts builds each from the zod envelopes. */
export type SchemaName = 'request' | 'result' | 'dead-letter' | 'vehicle-search-event' | 'audit-event';

/**
 * One topic of the contract, or one per operation where `name` holds `{operation}`. A new topic
 * is one row here plus, for a new kind of value, its schema in json-schemas.ts: topic setup,
 * the JSON Schemas, the AsyncAPI document, the audit commands' kinds and the data map's topics
 * derive from this table.
 */
export interface TopicRow {
  /** The name after `<prefix>.`; `{operation}` stands for each operation. */
  readonly name: string;
  readonly kind: TopicKind;
  /** The request lane the topic carries (request topics only). */
  readonly lane?: Lane;
  /** What the message key is. */
  readonly key: string;
  readonly schema: SchemaName;
  /** Title of the value's JSON Schema (`{operation}` replaced). */
  readonly title: string;
  /** Framed for the schema registry (`<topic>-value`) when SCHEMA_REGISTRY_URL is set; else plain JSON always. */
  readonly framed: boolean;
  readonly retention: RetentionClass;
  /** Created accepting values up to 2 MiB (max.message.bytes), so that a result at RESULT_MAX_BYTES fits. */
  readonly largeValues: boolean;
  /** The service reads it ('receive') or writes it ('send'), in AsyncAPI's words. */
  readonly action: 'receive' | 'send';
  /** The AsyncAPI operation's summary, and its message's name and title. */
  readonly summary: string;
  readonly message: { readonly name: string; readonly title: string };
  /** The pattern of the CloudEvents `ce_type` header of what the service writes (none: no CloudEvents headers). */
  readonly cloudEventType?: string;
  readonly writtenBy: string;
  readonly readBy: string;
  /** The personal data its values hold (the data map). */
  readonly holds: string;
}

const REQUEST_KEY = 'the publisher’s choice (often the tax id or plate): requests with one key run in order';
const OUTPUT_KEY = 'the request’s key, so that an outcome shares its request’s partition';

export const TOPICS: readonly TopicRow[] = [
  {
    name: 'requests.{operation}',
    kind: 'requests',
    lane: 'interactive',
    key: REQUEST_KEY,
    schema: 'request',
    title: 'Request: {operation}',
    framed: true,
    retention: 'request',
    largeValues: false,
    action: 'receive',
    summary: 'Verification requests of {operation}',
    message: { name: 'request.{operation}', title: 'Request: {operation}' },
    writtenBy: 'upstream publishers; `redrive`',
    readBy: 'the service; `replay`, `erase`',
    holds: 'requests as upstream sent them: tax ids, plates, names, selfies (base64 or URL), metadata',
  },
  {
    name: 'requests.{operation}.bulk',
    kind: 'requests',
    lane: 'bulk',
    key: REQUEST_KEY,
    schema: 'request',
    title: 'Request (bulk lane): {operation}',
    framed: true,
    retention: 'request',
    largeValues: false,
    action: 'receive',
    summary:
      'Verification requests of {operation}, bulk lane: served after the interactive lane, with a reserved share of the limit',
    message: { name: 'request.{operation}.bulk', title: 'Request (bulk lane): {operation}' },
    writtenBy: 'upstream publishers (backfills, re-checks); `redrive`',
    readBy: 'the service; `replay`, `erase`',
    holds: 'as the interactive lane',
  },
  {
    name: 'results.{operation}',
    kind: 'results',
    key: OUTPUT_KEY,
    schema: 'result',
    title: 'Result: {operation}',
    framed: true,
    retention: 'output',
    largeValues: true,
    action: 'send',
    summary: 'One result per answered {operation} request',
    message: { name: 'result.{operation}', title: 'Result: {operation}' },
    cloudEventType: '^verification\\.result\\.{operation}$',
    writtenBy: 'the service',
    readBy: 'downstream consumers (scoring, audits); the console; `replay`, `erase`',
    holds:
      'the vendor’s answer whole: OCR names, CPFs, mothers’ names, addresses, images, lawsuits and parties',
  },
  {
    name: 'errors',
    kind: 'errors',
    key: OUTPUT_KEY,
    schema: 'dead-letter',
    title: 'Dead letter',
    framed: true,
    retention: 'output',
    largeValues: true,
    action: 'send',
    summary: 'One dead letter per request that could not be answered',
    message: { name: 'error', title: 'Dead letter' },
    cloudEventType: '^verification\\.error\\.',
    writtenBy: 'the service',
    readBy: 'downstream consumers; the console; `replay`, `redrive`, `erase`',
    holds: 'dead letters: the request as received (or its raw bytes), the error',
  },
  {
    name: 'events.vehicle-search',
    kind: 'events',
    key: OUTPUT_KEY,
    schema: 'vehicle-search-event',
    title: 'Vehicle-search event',
    framed: true,
    retention: 'output',
    largeValues: true,
    action: 'send',
    summary: 'Status events of asynchronous vehicle searches',
    message: { name: 'vehicle-search-event', title: 'Vehicle-search event' },
    cloudEventType: '^verification\\.event\\.vehicle-search\\.',
    writtenBy: 'the service (the webhook sink, the poller)',
    readBy: 'downstream consumers; `replay`, `erase`',
    holds: 'the vehicle search’s answer (plate, vehicle and owner data), metadata',
  },
  {
    name: 'audit',
    kind: 'audit',
    key: 'the action',
    schema: 'audit-event',
    title: 'Audit event (console, erase command)',
    framed: false,
    retention: 'audit',
    largeValues: false,
    action: 'send',
    summary: 'Every reveal and redrive done in the operator console, without personal data',
    message: { name: 'console-audit-event', title: 'Console audit event' },
    writtenBy: 'the console, `redrive`, `erase`',
    readBy: 'auditors',
    holds:
      'who revealed, redrove, erased what: roles, actors, coordinates, counts, keyed hashes; no identifier in clear',
  },
];

/** Whether the row stands for one topic per operation. */
export function perOperation(row: TopicRow): boolean {
  return row.name.includes('{operation}');
}

/** `text` with `{operation}` replaced (a row's name, title, summary...). */
export function forOperation(text: string, operation: string | undefined): string {
  return operation === undefined ? text : text.replaceAll('{operation}', operation);
}

/** The row of a kind and lane; throws when the table has none (a programming error). */
export function topicRow(kind: TopicKind, lane?: Lane): TopicRow {
  const row = TOPICS.find((r) => r.kind === kind && r.lane === lane);
  if (!row) throw new Error(`no topic of kind ${kind}${lane ? ` (${lane} lane)` : ''} in the table`);
  return row;
}

/** One topic of the contract: its row, the operation it is for (per-operation rows), and its name after the prefix. */
export interface ContractTopic {
  row: TopicRow;
  operation?: string;
  /** The name after `<prefix>.`, which is also its schema file's name in schemas/. */
  suffix: string;
}

/**
 * Every topic of the contract in one order, which the JSON Schemas, the AsyncAPI document and
 * topic setup share: each operation's topics in turn (its per-operation rows in table order),
 * then the topics shared by all operations.
 */
export function contractTopicList(
  operations: readonly string[],
  rows: readonly TopicRow[] = TOPICS,
): ContractTopic[] {
  const each = rows.filter(perOperation);
  const shared = rows.filter((row) => !perOperation(row));
  return [
    ...operations.flatMap((operation) =>
      each.map((row) => ({ row, operation, suffix: forOperation(row.name, operation) })),
    ),
    ...shared.map((row) => ({ row, suffix: row.name })),
  ];
}
