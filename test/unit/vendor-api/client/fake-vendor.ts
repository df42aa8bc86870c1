import type { Operation } from '../../../../src/contract/operations.js';
import { parseParams, type ParamsInputOf, type ParamsOf } from '../../../../src/contract/params.js';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import { createVendorClient, type VendorClient } from '../../../../src/vendor-api/client.js';
import type { VendorClientOptions } from '../../../../src/vendor-api/options.js';

/** One request as the fake vendor saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** The raw query string, exactly as sent. */
  rawQuery: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export type Reply = (request: RecordedRequest, response: ServerResponse, incoming: IncomingMessage) => void;

export interface FakeVendor {
  url: string;
  requests: RecordedRequest[];
  /** Bytes read from every connection, complete requests or not. */
  received: { bytes: number };
}

const toClose: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const close of toClose.splice(0)) await close();
});

/** A real HTTP server on 127.0.0.1 and a random port, closed after the test. */
export async function startFakeVendor(reply: Reply): Promise<FakeVendor> {
  const requests: RecordedRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const [path = '', rawQuery = ''] = (incoming.url ?? '').split('?', 2);
      const recorded: RecordedRequest = {
        method: incoming.method ?? '',
        path,
        rawQuery,
        query: new URLSearchParams(rawQuery),
        headers: incoming.headers,
        body: Buffer.concat(chunks),
      };
      requests.push(recorded);
      reply(recorded, response, incoming);
    });
  });
  const received = { bytes: 0 };
  server.on('connection', (socket) => {
    socket.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  toClose.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  );
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, requests, received };
}

export const API_KEY = 'test-key-0123456789';

/** Params as the runtime hands them to the client: parsed by the operation's schema. */
export function parsed<O extends Operation>(operation: O, input: ParamsInputOf<O>): ParamsOf<O> {
  const result = parseParams(operation, input);
  if (!result.ok) throw new Error(`test params of ${operation} are invalid: ${result.message}`);
  return result.params;
}

/** A client for the fake vendor, closed after the test. */
export function clientFor(vendor: FakeVendor, options: Partial<VendorClientOptions> = {}): VendorClient {
  const client = createVendorClient({ baseUrl: vendor.url, apiKey: API_KEY, ...options });
  toClose.unshift(() => client.close());
  return client;
}

/**
 * One call of `operation` with `input` (parsed as the runtime would) to a fake vendor that
 * answers `answer` (JSON with status 200, or a Reply); returns the request it saw and the result.
 */
export async function callFake<O extends Operation>(
  answer: Reply | { body: unknown },
  operation: O,
  input: ParamsInputOf<O>,
) {
  const vendor = await startFakeVendor('body' in answer ? replyJson(200, answer.body) : answer);
  const result = await clientFor(vendor).call(operation, parsed(operation, input));
  const [request] = vendor.requests;
  if (!request) throw new Error('the fake vendor saw no request');
  return { vendor, request, result };
}

export function json(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

/** A reply that answers every request with the same JSON. */
export function replyJson(status: number, body: unknown, headers: Record<string, string> = {}): Reply {
  return (_, response) => {
    json(response, status, body, headers);
  };
}

export interface MultipartPart {
  name: string;
  filename: string | undefined;
  contentType: string | undefined;
  data: Buffer;
}

/**
 * A deliberately small multipart/form-data reader (RFC 7578), independent of the client's
 * own encoder, so the test checks the bytes on the wire rather than undici against itself.
 */
export function multipartOf(request: RecordedRequest): MultipartPart[] {
  const boundary = /boundary=([^;]+)/.exec(request.headers['content-type'] ?? '')?.[1];
  if (boundary === undefined) throw new Error('not a multipart request');
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: MultipartPart[] = [];
  let start = request.body.indexOf(delimiter) + delimiter.length;
  for (;;) {
    const end = request.body.indexOf(delimiter, start);
    if (end === -1) break;
    const raw = request.body.subarray(start + 2, end - 2); // CRLF after the delimiter and before the next
    const split = raw.indexOf('\r\n\r\n');
    const head = raw.subarray(0, split).toString();
    parts.push({
      name: /name="([^"]*)"/.exec(head)?.[1] ?? '',
      filename: /filename="([^"]*)"/.exec(head)?.[1],
      contentType: /content-type: *([^\r\n]+)/i.exec(head)?.[1],
      data: raw.subarray(split + 4),
    });
    start = end + delimiter.length;
  }
  return parts;
}

/** Runs `promise` expecting a rejection and returns the error. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}
