/**
 * Issue 37: after the registry lost its storage and another client registered first, the
 * upstream kept framing valid requests with its cached id, which then named another subject's
 * schema (or nothing). Decoding them against that schema dead-lettered them as invalid_request
 * ("value framed with schema id 7 could not be decoded: invalid payload"), paid ones included.
 * A request value is JSON whatever its framing: it is read from the bytes after the header, and
 * the framing id is only reported on. The registry client is the real one, against a loopback
 * HTTP server answering the Confluent API's GET /schemas/ids/{id}.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../src/errors.js';
import { createRegistryClient } from '../../../src/producers/registry-client.js';
import { RegistryUnavailable, registryCodec, type ValueCodec } from '../../../src/producers/value-codec.js';

/** Ids the fake registry gives: 7 names another subject's schema, 8 one the request matches. */
const SCHEMAS = new Map<number, object>([
  [
    7,
    {
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: 'another subject: a vehicle event',
      type: 'object',
      required: ['plate'],
      properties: { plate: { type: 'string' } },
    },
  ],
  [8, { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: ['requestId'] }],
]);
/** The registry fails (5xx) for this id. */
const FAILING_ID = 9;

let server: Server;
let codec: ValueCodec;
const asked: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const id = Number(/^\/schemas\/ids\/(\d+)/.exec(req.url ?? '')?.[1]);
    asked.push(id);
    const schema = SCHEMAS.get(id);
    res.setHeader('content-type', 'application/vnd.schemaregistry.v1+json');
    if (id === FAILING_ID) {
      res.writeHead(503).end(JSON.stringify({ error_code: 50300, message: 'unavailable' }));
    } else if (schema === undefined) {
      res.writeHead(404).end(JSON.stringify({ error_code: 40403, message: 'Schema not found' }));
    } else {
      res.writeHead(200).end(JSON.stringify({ schema: JSON.stringify(schema), schemaType: 'JSON' }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  codec = registryCodec(createRegistryClient(`http://127.0.0.1:${port}`), new Map());
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const request = { requestId: 'r-1', params: { taxId: '12345678909' } };

function framed(id: number, value: unknown): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(id, 1);
  return Buffer.concat([header, Buffer.from(typeof value === 'string' ? value : JSON.stringify(value))]);
}

describe('reading a request value whatever its framing', () => {
  it('reads a request framed with an id that names another subject’s schema, and says the framing is foreign', async () => {
    await expect(codec.readRequest(framed(7, request))).resolves.toEqual({
      value: request,
      mismatch: { schemaId: 7, kind: 'foreign' },
    });
  });

  it('reads a request framed with an id the registry does not know, and says the framing is unknown', async () => {
    await expect(codec.readRequest(framed(4242, request))).resolves.toEqual({
      value: request,
      mismatch: { schemaId: 4242, kind: 'unknown' },
    });
  });

  it('reports nothing when the framing id names a schema the request matches', async () => {
    await expect(codec.readRequest(framed(8, request))).resolves.toEqual({ value: request });
  });

  it('reads a plain JSON request without asking the registry', async () => {
    asked.length = 0;
    await expect(codec.readRequest(Buffer.from(JSON.stringify(request)))).resolves.toEqual({
      value: request,
    });
    expect(asked).toEqual([]);
  });

  it('waits for a registry that fails (5xx) rather than guess what the id names', async () => {
    await expect(codec.readRequest(framed(FAILING_ID, request))).rejects.toBeInstanceOf(RegistryUnavailable);
  });

  it('refuses framed bytes that are not JSON, without quoting them, whatever the id', async () => {
    const failure = await codec.readRequest(framed(4242, '{"taxId": "12345678909"')).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(InvalidRequestError);
    expect((failure as Error).message).toMatch(/^value framed with schema id 4242 is not valid JSON/);
    expect((failure as Error).message).not.toContain('12345678909');
  });

  it('still decodes outputs strictly against the schema their id names', async () => {
    await expect(codec.decode(framed(7, request))).rejects.toBeInstanceOf(InvalidRequestError);
  });
});
