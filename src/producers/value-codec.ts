import type { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { InvalidRequestError } from '../errors.js';
import { jsonErrorPosition } from '../json-position.js';

/**
 * Message values: the Confluent wire format (magic byte 0, four-byte schema id, then JSON)
 * when a schema registry is configured, plain UTF-8 JSON otherwise. Reading accepts both
 * (shared/contract.md, "Messages").
 */
export interface ValueCodec {
  /**
   * `value`'s bytes for `topic`. `json`, when given, is JSON.stringify of `value` made already
   * (or JSON that parses to the same value): written as it is.
   */
  encode(topic: string, value: object, json?: string): Promise<Buffer>;
  /** A value as its framing's schema reads it (outputs: ours, framed with our ids). */
  decode(value: Buffer): Promise<unknown>;
  /**
   * A request value: JSON whatever its framing (the request's own schema checks it next), with
   * whether its framing id describes it. Throws InvalidRequestError only when the bytes are not
   * JSON, RegistryUnavailable while the registry cannot say what the id names.
   */
  readRequest(value: Buffer): Promise<ReadValue>;
  /**
   * Fetches the current schema of each topic now, so that the first value framed or read for it
   * does not: the registry client compiles a validator per schema id (tens of ms on the event
   * loop each), and compiled lazily they ran amid the first vendor calls, which then left late.
   * Start-up work, done before consuming (the service) or publishing (the demo).
   */
  prepare(topics: Iterable<string>): Promise<void>;
}

/**
 * A framing id that does not describe its value. The value is read all the same: an upstream
 * that cached an id before the registry lost its storage frames valid requests with an id that
 * the registry no longer knows, or that now names another subject's schema.
 */
export interface FramingMismatch {
  schemaId: number;
  /** unknown: the registry does not know the id; foreign: the schema it names does not match the value. */
  kind: FramingMismatchKind;
}

export const FRAMING_MISMATCH_KINDS = ['unknown', 'foreign'] as const;
export type FramingMismatchKind = (typeof FRAMING_MISMATCH_KINDS)[number];

export interface ReadValue {
  value: unknown;
  mismatch?: FramingMismatch;
}

const MAGIC_BYTE = 0;

export function isFramed(value: Buffer): boolean {
  return value.length > 5 && value[0] === MAGIC_BYTE;
}

/**
 * An encoded value is held until its transaction commits, often across garbage collections.
 * A small Buffer from Node's shared pool (Buffer.from, allocUnsafe) is a view of a 64 KiB slab
 * (Node 24's Buffer.poolSize) that stays allocated while any view of it lives: held values
 * pinned about 2 KiB of slab each, 25 MiB live at 256 input partitions. Values get memory of
 * their own, sized to fit (allocUnsafeSlow is never pooled).
 */
function ownedBuffer(length: number): Buffer {
  return Buffer.allocUnsafeSlow(length);
}

function ownedUtf8(text: string): Buffer {
  const bytes = ownedBuffer(Buffer.byteLength(text));
  bytes.write(text);
  return bytes;
}

export function plainJsonCodec(): ValueCodec {
  const decode = (value: Buffer): Promise<unknown> => {
    if (isFramed(value)) {
      return Promise.reject(
        new InvalidRequestError(
          `value is in the schema registry wire format (schema id ${value.readUInt32BE(1)}) but no SCHEMA_REGISTRY_URL is configured`,
        ),
      );
    }
    return Promise.resolve(parseJson(value));
  };
  return {
    encode: (_topic, value, json) => Promise.resolve(ownedUtf8(json ?? JSON.stringify(value))),
    decode,
    readRequest: async (value) => ({ value: await decode(value) }),
    prepare: () => Promise.resolve(),
  };
}

/**
 * The registry did not answer (connection refused, timeout, 5xx...): an infrastructure fault,
 * never the message's. The message is tried again in place once the registry answers.
 */
export class RegistryUnavailable extends Error {}

/** `schemaIds` maps each output topic to the id of its registered value schema. */
export function registryCodec(registry: SchemaRegistry, schemaIds: ReadonlyMap<string, number>): ValueCodec {
  return {
    async encode(topic, value) {
      const id = schemaIds.get(topic);
      if (id === undefined) throw new Error(`no schema registered for topic ${topic}`);
      return registry.encode(id, value);
    },
    decode: (value) => decodeValue(registry, value),
    readRequest: (value) => readRequestValue(registry, value),
    prepare: (topics) => prepareLatest(registry, topics),
  };
}

/**
 * A reader's warm-up: the latest schema of each topic's subject (TopicNameStrategy, as the
 * service registers them), which is what the next values will be framed with. A subject not
 * registered yet is left to the first decode.
 */
async function prepareLatest(registry: SchemaRegistry, topics: Iterable<string>): Promise<void> {
  await Promise.all(
    [...topics].map(async (topic) => {
      try {
        await registry.getSchema(await registry.getLatestSchemaId(`${topic}-value`));
      } catch (error) {
        if (registryStatus(error) !== 404) throw error;
      }
    }),
  );
}

/** What the service frames with: ids checked again after any registry failure (schema-ids.ts). */
export interface LiveSchemaIds {
  idFor(topic: string): Promise<number>;
  client(): SchemaRegistry;
  /** The registry failed: check the ids before the next frame. */
  suspect(): void;
}

export interface FramingOptions {
  /**
   * Check each value against its schema before framing it (ajv, through the registry client's
   * schema), throwing when it does not match. Off in the service: every output is built by
   * typed code from values already checked (the request's schema, the vendor's answer), and
   * the check was about a tenth of the work of framing a result in benchmark (a), where the
   * one-instance mode frames nothing. The tests keep it: their readers decode every framed
   * output through the registry client, which checks it against its schema.
   */
  validate?: boolean;
}

export function liveRegistryCodec(ids: LiveSchemaIds, options: FramingOptions = {}): ValueCodec {
  const schemas = new SchemaCache();
  const validate = options.validate ?? false;
  /** The topic's id and schema, fetched once per id (the client after idFor, which may replace it). */
  const schemaOf = async (topic: string): Promise<{ id: number; schema: Schema }> => {
    const id = await ids.idFor(topic);
    const client = ids.client();
    return { id, schema: schemas.get(client, id) ?? (await fetchSchema(ids, client, id, topic, schemas)) };
  };
  return {
    async encode(topic, value, json) {
      // Fetched once per id even unchecked: an id the registry does not know is never framed.
      const { id, schema } = await schemaOf(topic);
      if (!validate) return frameJson(id, json ?? JSON.stringify(value));
      // Checked, then framed as the caller serialised it (the same value).
      const checked = schema.toBuffer(value);
      return json === undefined ? frame(id, checked) : frameJson(id, json);
    },
    decode: (value) => decodeValue(ids.client(), value),
    readRequest: (value) => readRequestValue(ids.client(), value),
    async prepare(topics) {
      await Promise.all([...topics].map((topic) => schemaOf(topic)));
    },
  };
}

type Schema = Awaited<ReturnType<SchemaRegistry['getSchema']>>;

/**
 * Each client's schemas by id, fetched from the registry on first use as the client's own
 * encode does. Framing then stays synchronous: the client's encode costs two more awaits and a
 * second copy of every value, a measurable share of the CPU per request.
 */
class SchemaCache {
  private readonly byClient = new WeakMap<SchemaRegistry, Map<number, Schema>>();

  get(client: SchemaRegistry, id: number): Schema | undefined {
    return this.byClient.get(client)?.get(id);
  }

  set(client: SchemaRegistry, id: number, schema: Schema): void {
    const known = this.byClient.get(client) ?? new Map<number, Schema>();
    known.set(id, schema);
    this.byClient.set(client, known);
  }
}

async function fetchSchema(
  ids: LiveSchemaIds,
  client: SchemaRegistry,
  id: number,
  topic: string,
  schemas: SchemaCache,
): Promise<Schema> {
  try {
    const schema = await client.getSchema(id);
    schemas.set(client, id, schema);
    return schema;
  } catch (error) {
    const status = registryStatus(error);
    if (status === undefined) throw error;
    // Our id unknown (404) or the registry away: never frame before the ids are checked.
    ids.suspect();
    throw new RegistryUnavailable(`schema registry answered ${status} for the schema id of ${topic}`);
  }
}

/**
 * The Confluent wire format: magic byte 0, the schema id (4 bytes, big-endian), then the
 * value's JSON, as the schema serialises it (checked against the schema, throwing when
 * invalid: `schema.toBuffer`) or written straight into the frame (`frameJson`, one copy).
 */
function frame(id: number, payload: Buffer): Buffer {
  const framed = frameHeader(id, payload.length);
  payload.copy(framed, 5);
  return framed;
}

function frameJson(id: number, json: string): Buffer {
  const framed = frameHeader(id, Buffer.byteLength(json));
  framed.write(json, 5);
  return framed;
}

function frameHeader(id: number, payloadBytes: number): Buffer {
  const framed = ownedBuffer(5 + payloadBytes);
  framed[0] = MAGIC_BYTE;
  framed.writeInt32BE(id, 1);
  return framed;
}

async function decodeValue(registry: SchemaRegistry, value: Buffer): Promise<unknown> {
  if (!isFramed(value)) return parseJson(value);
  const schemaId = value.readUInt32BE(1);
  try {
    return (await registry.decode(value)) as unknown;
  } catch (error) {
    const status = registryStatus(error);
    // Only an id the registry answers as unknown is the message's fault.
    if (status === 404) throw new InvalidRequestError(`schema id ${schemaId} is unknown to the registry`);
    if (status !== undefined) {
      throw new RegistryUnavailable(`schema registry answered ${status} for schema id ${schemaId}`);
    }
    // A JSON syntax error quotes the input, which may be personal data: neither its
    // message nor the error itself (as a cause, it would reach the logs) is kept.
    const reason = error instanceof SyntaxError ? 'not valid JSON' : errorMessage(error);
    throw new InvalidRequestError(`value framed with schema id ${schemaId} could not be decoded: ${reason}`);
  }
}

/**
 * A request value read as the JSON after the 5-byte header when framed (contract.md: values
 * are JSON objects, framed or plain), the framing id then checked against the registry: the
 * request's own schema decides whether it is valid, never the schema its id happens to name.
 */
async function readRequestValue(registry: SchemaRegistry, value: Buffer): Promise<ReadValue> {
  if (!isFramed(value)) return { value: parseJson(value) };
  const schemaId = value.readUInt32BE(1);
  const json = parseJson(value.subarray(5), `value framed with schema id ${schemaId}`);
  const kind = await framingMismatch(registry, schemaId, json);
  return kind === undefined ? { value: json } : { value: json, mismatch: { schemaId, kind } };
}

/** How the framing id fails to describe the value, undefined when it does. */
async function framingMismatch(
  registry: SchemaRegistry,
  schemaId: number,
  json: unknown,
): Promise<FramingMismatchKind | undefined> {
  let schema: Schema;
  try {
    schema = await registry.getSchema(schemaId);
  } catch (error) {
    const status = registryStatus(error);
    if (status === 404) return 'unknown';
    // Away or failing: waited for (decode-wait.ts), so that a mismatch is never missed.
    if (status !== undefined) {
      throw new RegistryUnavailable(`schema registry answered ${status} for schema id ${schemaId}`);
    }
    // A schema the client cannot use (another type, a document it cannot compile): not ours.
    return 'foreign';
  }
  try {
    // JsonSchema.isValid answers true for an invalid value unless it is given an errorHook.
    return typeof json === 'object' && json !== null && schema.isValid(json, { errorHook: () => undefined })
      ? undefined
      : 'foreign';
  } catch {
    return 'foreign';
  }
}

/**
 * The HTTP status of a registry client failure, undefined for other errors (content). The
 * client (mappersmith) reports a failed connection or a timeout as status 400.
 */
export function registryStatus(error: unknown): number | undefined {
  if (!(error instanceof Error) || error.name !== 'ResponseError') return undefined;
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}

function parseJson(value: Buffer, what = 'value'): unknown {
  try {
    return JSON.parse(value.toString('utf8')) as unknown;
  } catch (error) {
    throw new InvalidRequestError(`${what} is not valid JSON${jsonErrorPosition(error)}`);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
