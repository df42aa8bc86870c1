import { generateJsonSchemas, type JsonSchema } from './json-schemas.js';
import { OPERATIONS } from './operations.js';
import { contractTopicList, forOperation } from './topics.js';
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

const keySchema = {
  type: 'string',
  description:
    "The request's ordering key (a tax id or a plate, chosen by the producer; may be null). Results, dead letters and events keep the request's key, so they share its partition.",
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

function message(name: string, title: string, schema: JsonSchema, headers: JsonSchema): object {
  return {
    name,
    title,
    contentType: 'application/json',
    headers,
    payload: { schemaFormat: SCHEMA_FORMAT, schema },
    bindings: {
      kafka: {
        key: keySchema,
        // With SCHEMA_REGISTRY_URL the value is framed: magic byte 0, the 4-byte schema id of
        // subject <topic>-value, then the JSON; without it, plain JSON.
        schemaIdLocation: 'payload',
        schemaIdPayloadEncoding: 'confluent',
        schemaLookupStrategy: 'TopicNameStrategy',
        bindingVersion: KAFKA_BINDING,
      },
    },
  };
}

/**
 * The console's audit events: plain JSON whatever SCHEMA_REGISTRY_URL says (no registry
 * framing), keyed by the action, with a content-type header and no CloudEvents headers.
 */
function auditMessage(schema: JsonSchema): object {
  return {
    name: 'console-audit-event',
    title: 'Console audit event',
    contentType: 'application/json',
    headers: {
      type: 'object',
      required: ['content-type'],
      properties: { 'content-type': { type: 'string', const: 'application/json' } },
    },
    payload: { schemaFormat: SCHEMA_FORMAT, schema },
    bindings: {
      kafka: {
        key: { type: 'string', enum: [...AUDIT_ACTIONS], description: 'The action' },
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

/** Every topic of the contract (contract/topics.ts) with its message, in the table's order. */
function contractChannels(schema: (name: string) => JsonSchema): ChannelEntry[] {
  return contractTopicList(OPERATIONS).map(({ row, operation, suffix }) => {
    const text = (template: string): string => forOperation(template, operation);
    const headers = row.action === 'receive' ? requestHeaders : outputHeaders(text(row.cloudEventType ?? ''));
    return {
      id: suffix,
      action: row.action,
      summary: text(row.summary),
      message: row.framed
        ? message(text(row.message.name), text(row.message.title), schema(suffix), headers)
        : auditMessage(schema(suffix)),
    };
  });
}

export function generateAsyncApi(version: string): Record<string, unknown> {
  const schemas = generateJsonSchemas();
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const { id, action, summary, message: msg } of contractChannels((name) => schemas.get(name) ?? {})) {
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
