/**
 * The request lanes of an operation (shared/contract.md, "Lanes"): `interactive` (a person is
 * waiting) is `<prefix>.requests.<operation>`, `bulk` (backfills, re-checks) the same name with
 * `.bulk` appended. A request's lane is known from the topic it came from.
 */
export const LANES = ['interactive', 'bulk'] as const;
export type Lane = (typeof LANES)[number];

/** What a message's key is (shared/contract.md, "Messages"), in the data map's words. */
export const KEYS = {
  publisher: 'the publisher’s choice (often the tax id or plate): requests with one key run in order',
  request: 'the request’s key, so that an outcome shares its request’s partition',
  action: 'the action',
} as const;
export type KeyKind = keyof typeof KEYS;

/**
 * Who writes or reads a topic, in the data map's words. The audit commands read the kinds of
 * topic the table says they read (audit/topics.ts), so a reader here is also a behaviour.
 */
export const PARTIES = {
  upstream: 'upstream publishers',
  service: 'the service',
  downstream: 'downstream consumers (scoring, audits)',
  console: 'the operator console',
  replay: '`replay`',
  redrive: '`redrive`',
  erase: '`erase`',
  auditors: 'auditors',
} as const;
export type Party = keyof typeof PARTIES;

/** The setting that gives a topic the service creates its retention, by the row's class. */
export const RETENTION_SETTINGS = {
  request: 'REQUEST_RETENTION_MS',
  output: 'OUTPUT_RETENTION_MS',
  audit: 'AUDIT_RETENTION_MS',
} as const;
export type RetentionClass = keyof typeof RETENTION_SETTINGS;

/** The values' schema, by name: src/contract/json-schemas.ts builds each from the zod envelopes. */
export type SchemaName = 'request' | 'result' | 'dead-letter' | 'vehicle-search-event' | 'audit-event';

/** One row of the table of topics (TOPICS). `{operation}` in a text stands for each operation. */
export interface TopicRow<K extends string = string> {
  /** The name after `<prefix>.`, also the name of its schema file in schemas/. */
  readonly name: string;
  /** What the audit commands select it by (`--kind`), with its lane for request topics. */
  readonly kind: K;
  readonly lane?: Lane;
  readonly key: KeyKind;
  readonly schema: SchemaName;
  /** Title of the value's JSON Schema. */
  readonly title: string;
  /** Framed for the registry (`<topic>-value`) when SCHEMA_REGISTRY_URL is set; else plain JSON always. */
  readonly framed: boolean;
  readonly retention: RetentionClass;
  /** Created accepting values up to 2 MiB (max.message.bytes), so that a result at RESULT_MAX_BYTES fits. */
  readonly largeValues: boolean;
  /** The AsyncAPI operation's summary, and its message's name and title. */
  readonly summary: string;
  readonly message: { readonly name: string; readonly title: string };
  /** The pattern of the CloudEvents `ce_type` header the service writes (none: no CloudEvents headers). */
  readonly cloudEventType?: string;
  readonly writers: readonly Party[];
  readonly readers: readonly Party[];
  /** Whether its values hold personal data (the data map; `erase` must read every such topic). */
  readonly personalData: boolean;
  /** What its values hold, for the data map. */
  readonly holds: string;
}

const TABLE = [
  {
    name: 'requests.{operation}',
    kind: 'requests',
    lane: 'interactive',
    key: 'publisher',
    schema: 'request',
    title: 'Request: {operation}',
    framed: true,
    retention: 'request',
    largeValues: false,
    summary: 'Verification requests of {operation}',
    message: { name: 'request.{operation}', title: 'Request: {operation}' },
    writers: ['upstream', 'redrive'],
    readers: ['service', 'console', 'replay', 'erase'],
    personalData: true,
    holds: 'requests as upstream sent them: tax ids, plates, names, selfies (base64 or URL), metadata',
  },
  {
    name: 'requests.{operation}.bulk',
    kind: 'requests',
    lane: 'bulk',
    key: 'publisher',
    schema: 'request',
    title: 'Request (bulk lane): {operation}',
    framed: true,
    retention: 'request',
    largeValues: false,
    summary:
      'Verification requests of {operation}, bulk lane: served after the interactive lane, with a reserved share of the limit',
    message: { name: 'request.{operation}.bulk', title: 'Request (bulk lane): {operation}' },
    writers: ['upstream', 'redrive'],
    readers: ['service', 'console', 'replay', 'erase'],
    personalData: true,
    holds: 'as the interactive lane (backfills, re-checks)',
  },
  {
    name: 'results.{operation}',
    kind: 'results',
    key: 'request',
    schema: 'result',
    title: 'Result: {operation}',
    framed: true,
    retention: 'output',
    largeValues: true,
    summary: 'One result per answered {operation} request',
    message: { name: 'result.{operation}', title: 'Result: {operation}' },
    cloudEventType: '^verification\\.result\\.{operation}$',
    writers: ['service'],
    readers: ['downstream', 'console', 'replay', 'erase'],
    personalData: true,
    holds:
      'the vendor’s answer whole: OCR names, CPFs, mothers’ names, addresses, images, lawsuits and parties',
  },
  {
    name: 'errors',
    kind: 'errors',
    key: 'request',
    schema: 'dead-letter',
    title: 'Dead letter',
    framed: true,
    retention: 'output',
    largeValues: true,
    summary: 'One dead letter per request that could not be answered',
    message: { name: 'error', title: 'Dead letter' },
    cloudEventType: '^verification\\.error\\.',
    writers: ['service'],
    readers: ['downstream', 'console', 'replay', 'redrive', 'erase'],
    personalData: true,
    holds: 'dead letters: the request as received (or its raw bytes), the error',
  },
  {
    name: 'events.vehicle-search',
    kind: 'events',
    key: 'request',
    schema: 'vehicle-search-event',
    title: 'Vehicle-search event',
    framed: true,
    retention: 'output',
    largeValues: true,
    summary: 'Status events of asynchronous vehicle searches',
    message: { name: 'vehicle-search-event', title: 'Vehicle-search event' },
    cloudEventType: '^verification\\.event\\.vehicle-search\\.',
    writers: ['service'],
    readers: ['downstream', 'console', 'replay', 'erase'],
    personalData: true,
    holds: 'the vehicle search’s answer (plate, vehicle and owner data), metadata',
  },
  {
    // This service's own addition to the contract: plain JSON, so readers need no registry.
    name: 'audit',
    kind: 'audit',
    key: 'action',
    schema: 'audit-event',
    title: 'Audit event (console, erase command)',
    framed: false,
    retention: 'audit',
    largeValues: false,
    summary:
      'Every reveal, dead-letter search by key, redrive and erase, and every read of personal data by `replay` or `redrive --show-keys`, from the operator console or the commands, without personal data',
    message: { name: 'console-audit-event', title: 'Console audit event' },
    writers: ['console', 'replay', 'redrive', 'erase'],
    readers: ['auditors'],
    personalData: false,
    holds:
      'who revealed, replayed, redrove, erased what: roles, actors, coordinates, topics, windows, counts, keyed hashes; no identifier in clear',
  },
] as const satisfies readonly TopicRow[];

type Row = (typeof TABLE)[number];
/** The kinds of topic, as the table's rows name them. */
export type TopicKind = Row['kind'];
// Distributes over the rows: the kind of each row whose readers include P.
type KindIfReadBy<R, P> = R extends { readonly kind: infer K; readonly readers: readonly (infer Q)[] }
  ? P extends Q
    ? K
    : never
  : never;
/** The kinds of topic that a party reads, as a type (e.g. `replay`'s `--kind` choices). */
export type KindReadBy<P extends Party> = KindIfReadBy<Row, P>;

/**
 * The table of the contract's topics (shared/contract.md, "Topics"): one row per topic, or per
 * operation's topic where `name` holds `{operation}`. topicNames, topic setup, the JSON Schemas,
 * the AsyncAPI document, the audit commands' kinds and the topics of docs/data-map.md derive
 * from it: a new output topic is one row here, plus an entry in json-schemas.ts when its values
 * are of a new kind.
 */
export const TOPICS: readonly TopicRow<TopicKind>[] = TABLE;

/** The kinds of topic that `party` reads, in the table's order. */
export function kindsReadBy<P extends Party>(party: P): KindReadBy<P>[] {
  const kinds = TOPICS.filter((row) => row.readers.includes(party)).map((row) => row.kind);
  // The filter is what KindReadBy<P> says at the type level; TypeScript cannot follow it.
  return [...new Set(kinds)] as KindReadBy<P>[];
}

/** Whether the row stands for one topic per operation. */
export function perOperation(row: TopicRow): boolean {
  return row.name.includes('{operation}');
}

/** `text` with `{operation}` replaced (a row's name, title, summary...). */
export function forOperation(text: string, operation: string | undefined): string {
  return operation === undefined ? text : text.replaceAll('{operation}', operation);
}

/** The names of the table's rows: a name checked against the table where code spells it. */
export type TopicName = Row['name'];

/** The request row of a lane; throws when the table has none (a programming error). */
export function requestRow(lane: Lane): TopicRow<TopicKind> {
  const row = TOPICS.find((r) => r.kind === 'requests' && r.lane === lane);
  if (!row) throw new Error(`no request topic of the ${lane} lane in the table`);
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
 * Every topic of the contract in one order, which the JSON Schemas and the AsyncAPI document
 * share: each operation's topics in turn (its per-operation rows in table order), then the
 * topics shared by all operations.
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
