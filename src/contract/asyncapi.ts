import { generateJsonSchemas, type JsonSchema } from './json-schemas.js';
import { OPERATIONS } from './operations.js';
import { contractTopicList, forOperation, TOPICS, type KeyKind, type TopicRow } from './topics.js';
import { AUDIT_ACTIONS } from './audit-events.js';

/**
 * The AsyncAPI 3.0 document of the Kafka contract (schemas/asyncapi.yaml), generated from the
 * same zod envelopes as schemas/*.json: every topic a channel, the operations the service
 * receives and sends, each message's JSON Schema, its key, its CloudEvents headers and the
 * Confluent framing of its value.
 */
const SCHEMA_FORMAT = 'application/schema+json;version=draft-07';
const KAFKA_BINDING = '0.5.0';

const prefixParameter = {
  prefix: { description: 'TOPIC_PREFIX of the deployment', default: 'verification' },
};

const orderingKey = {
  type: 'string',
  description:
    "The request's ordering key (a tax id or a plate, chosen by the producer; may be null). Results, dead letters and events keep the request's key, so they share its partition.",
};

/** The message key by the row's key (contract/topics.ts, KEYS). */
const KEY_SCHEMAS: Record<KeyKind, JsonSchema> = {
  publisher: orderingKey,
  request: orderingKey,
  action: { type: 'string', enum: [...AUDIT_ACTIONS], description: 'The action' },
};

// With SCHEMA_REGISTRY_URL a framed value is magic byte 0, the 4-byte schema id of subject
// <topic>-value, then the JSON; without it, plain JSON.
const REGISTRY_FRAMING = {
  schemaIdLocation: 'payload',
  schemaIdPayloadEncoding: 'confluent',
  schemaLookupStrategy: 'TopicNameStrategy',
};

/** CloudEvents binary-mode headers (shared/contract.md, "Headers written"). */
function outputHeaders(ceType: string): JsonSchema {
  return {
    type: 'object',
    required: ['content-type', 'ce_specversion', 'ce_id', 'ce_source', 'ce_type', 'ce_time'],
    properties: {
      'content-type': { type: 'string', const: 'application/json' },
      ce_specversion: { type: 'string', const: '1.0' },
      ce_id: { type: 'string', format: 'uuid' },
      ce_source: { type: 'string', description: '/verification-gateway/<KAFKA_GROUP_ID>' },
      ce_type: { type: 'string', pattern: ceType },
      ce_time: { type: 'string', format: 'date-time' },
      ce_subject: { type: 'string', description: 'The requestId, when known' },
      traceparent: { type: 'string', description: "W3C trace context, the request's when it had one" },
    },
  };
}

const requestHeaders: JsonSchema = {
  type: 'object',
  properties: {
    traceparent: {
      type: 'string',
      pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$',
      description: 'W3C trace context; carried onto the outcome',
    },
  },
};

/** Plain JSON written by the console and the commands: a content type, no CloudEvents headers. */
const plainHeaders: JsonSchema = {
  type: 'object',
  required: ['content-type'],
  properties: { 'content-type': { type: 'string', const: 'application/json' } },
};

/** Whether the service reads the topic or writes it, in AsyncAPI's words. */
function actionOf(row: TopicRow): 'receive' | 'send' {
  return row.readers.includes('service') ? 'receive' : 'send';
}

/** The headers of a row's messages: a request's trace context, or what the writer sets. */
function headersOf(row: TopicRow, operation: string | undefined): JsonSchema {
  if (actionOf(row) === 'receive') return requestHeaders;
  return row.cloudEventType === undefined
    ? plainHeaders
    : outputHeaders(forOperation(row.cloudEventType, operation));
}

function message(row: TopicRow, operation: string | undefined, schema: JsonSchema): object {
  return {
    name: forOperation(row.message.name, operation),
    title: forOperation(row.message.title, operation),
    contentType: 'application/json',
    headers: headersOf(row, operation),
    payload: { schemaFormat: SCHEMA_FORMAT, schema },
    bindings: {
      kafka: {
        key: KEY_SCHEMAS[row.key],
        ...(row.framed ? REGISTRY_FRAMING : {}),
        bindingVersion: KAFKA_BINDING,
      },
    },
  };
}

interface ChannelEntry {
  id: string;
  action: 'send' | 'receive';
  summary: string;
  message: object;
}

/** Every topic of the table (contract/topics.ts) with its message, in the table's order. */
function contractChannels(rows: readonly TopicRow[], schema: (name: string) => JsonSchema): ChannelEntry[] {
  return contractTopicList(OPERATIONS, rows).map(({ row, operation, suffix }) => ({
    id: suffix,
    action: actionOf(row),
    summary: forOperation(row.summary, operation),
    message: message(row, operation, schema(suffix)),
  }));
}

export function generateAsyncApi(
  version: string,
  rows: readonly TopicRow[] = TOPICS,
): Record<string, unknown> {
  const schemas = generateJsonSchemas(rows);
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const { id, action, summary, message: msg } of contractChannels(
    rows,
    (name) => schemas.get(name) ?? {},
  )) {
    messages[id] = msg;
    channels[id] = {
      address: `{prefix}.${id}`,
      parameters: prefixParameter,
      messages: { [id]: { $ref: `#/components/messages/${id}` } },
    };
    operations[`${action}.${id}`] = {
      action,
      summary,
      channel: { $ref: `#/channels/${id}` },
      messages: [{ $ref: `#/channels/${id}/messages/${id}` }],
    };
  }
  return { ...documentHead(version), channels, operations, components: { messages } };
}

function documentHead(version: string): Record<string, unknown> {
  return {
    asyncapi: '3.0.0',
    info: {
      title: 'verification-gateway',
      version,
      description:
        'Kafka contract of the verification gateway (shared/contract.md): requests in, exactly one result or dead letter out per request for read_committed readers. Generated from src/contract/ by `npm run schemas`.',
    },
    defaultContentType: 'application/json',
    servers: {
      kafka: {
        host: '{brokers}',
        protocol: 'kafka',
        description: 'KAFKA_BROKERS',
        variables: { brokers: { default: '127.0.0.1:9092' } },
      },
    },
  };
}
