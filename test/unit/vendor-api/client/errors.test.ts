import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { VendorError } from '../../../../src/vendor-api/errors.js';
import { API_KEY, clientFor, json, parsed, rejectionOf, replyJson, startFakeVendor } from './fake-vendor.js';
import { summarySample } from './samples.js';

const PARAMS = { taxId: '52998224725' };

function envelope(status: number, reason: string) {
  return {
    id: `err-${status}`,
    error: { statusCode: status, error: reason, message: `vendor text about 52998224725` },
  };
}

async function failureFor(status: number, headers: Record<string, string> = {}): Promise<VendorError> {
  const vendor = await startFakeVendor((_, response) => {
    json(response, status, envelope(status, 'Reason'), headers);
  });
  const error = await rejectionOf(
    clientFor(vendor).call('lawsuits-summary', parsed('lawsuits-summary', PARAMS)),
  );
  expect(error).toBeInstanceOf(VendorError);
  return error as VendorError;
}

describe('vendor HTTP errors', () => {
  it.each([
    [400, 'upstream_rejected', 'VENDOR_HTTP_ERROR', false],
    [401, 'unauthorized', 'VENDOR_UNAUTHORIZED', false],
    [403, 'unauthorized', 'VENDOR_UNAUTHORIZED', false],
    [404, 'upstream_rejected', 'VENDOR_HTTP_ERROR', false],
    [422, 'upstream_rejected', 'VENDOR_HTTP_ERROR', false],
    [429, 'upstream_unavailable', 'VENDOR_RATE_LIMITED', true],
    [500, 'upstream_unavailable', 'VENDOR_SERVER_ERROR', true],
    [503, 'upstream_unavailable', 'VENDOR_SERVER_ERROR', true],
  ] as const)('maps %i to kind %s, code %s, retryable %s', async (status, kind, code, retryable) => {
    const error = await failureFor(status);
    expect(error).toMatchObject({
      kind,
      code,
      retryable,
      httpStatus: status,
      vendorId: `err-${status}`,
      operation: 'lawsuits-summary',
    });
    expect(error.vendorMessage).toBe('vendor text about 52998224725');
    expect(error.message).not.toContain('52998224725');
    expect(error.details).toMatchObject({
      code,
      operation: 'lawsuits-summary',
      route: 'GET /lawsuits-summary/v1',
    });
  });

  it('a 404 on a call where the spec defines no "nothing found" stays an error', async () => {
    const error = await failureFor(404);
    expect(error.message).toBe('vendor answered 404 Reason to GET /lawsuits-summary/v1 (lawsuits-summary)');
  });

  it('429 carries Retry-After in seconds as retryAfterMs', async () => {
    expect((await failureFor(429, { 'retry-after': '7' })).retryAfterMs).toBe(7000);
  });

  it('503 carries Retry-After as an HTTP date', async () => {
    const at = new Date(Date.now() + 60_000).toUTCString();
    const error = await failureFor(503, { 'retry-after': at });
    expect(error.retryAfterMs).toBeGreaterThan(55_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('a 500 without a JSON body is still a retryable server error', async () => {
    const vendor = await startFakeVendor((_, response) => {
      response.writeHead(500);
      response.end('oops');
    });
    const error = await rejectionOf(
      clientFor(vendor).call('lawsuits-summary', parsed('lawsuits-summary', PARAMS)),
    );
    expect(error).toMatchObject({ code: 'VENDOR_SERVER_ERROR', retryable: true, vendorId: undefined });
  });

  it('never puts the API key in a message or a serialised error', async () => {
    const error = await failureFor(401);
    expect(error.message).not.toContain(API_KEY);
    expect(JSON.stringify(error)).not.toContain(API_KEY);
    expect(error.message).toContain('check the API key');
  });
});

describe('vendor bad answers', () => {
  it('a 200 body that is not JSON is VENDOR_BAD_RESPONSE, internal and not retryable', async () => {
    const vendor = await startFakeVendor((_, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>Maria da Silva</html>');
    });
    const error = await rejectionOf(
      clientFor(vendor).call('lawsuits-summary', parsed('lawsuits-summary', PARAMS)),
    );
    expect(error).toMatchObject({
      code: 'VENDOR_BAD_RESPONSE',
      kind: 'internal',
      retryable: false,
      httpStatus: 200,
    });
    expect((error as Error).message).toContain('the body is not JSON');
    // As a log would carry it, causes included: where the body went wrong, never what it held.
    expect(JSON.stringify(pino.stdSerializers.err(error as Error))).not.toMatch(/Maria|html/);
  });

  it('a 200 body of the wrong shape names the member paths, never the values', async () => {
    const vendor = await startFakeVendor((_, response) => {
      json(response, 200, { ...summarySample, data: [{ total: '52998224725' }] });
    });
    const error = await rejectionOf(
      clientFor(vendor).call('lawsuits-summary', parsed('lawsuits-summary', PARAMS)),
    );
    expect(error).toMatchObject({ code: 'VENDOR_BAD_RESPONSE', kind: 'internal' });
    expect((error as Error).message).toContain('data[0].total');
    expect((error as Error).message).not.toContain('52998224725');
  });
});

describe('vendor transport failures', () => {
  it('a connection reset is VENDOR_NETWORK, upstream_unavailable and retryable', async () => {
    const vendor = await startFakeVendor((_, __, incoming) => incoming.socket.destroy());
    const error = await rejectionOf(
      clientFor(vendor).call('lawsuits-summary', parsed('lawsuits-summary', PARAMS)),
    );
    expect(error).toMatchObject({ code: 'VENDOR_NETWORK', kind: 'upstream_unavailable', retryable: true });
  });

  it('a refused connection is VENDOR_NETWORK and retryable', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    const error = await rejectionOf(
      clientFor({ url: `http://127.0.0.1:${port}`, requests: [], received: { bytes: 0 } }).call(
        'lawsuits-summary',
        parsed('lawsuits-summary', PARAMS),
      ),
    );
    expect(error).toMatchObject({ code: 'VENDOR_NETWORK', retryable: true });
  });

  it('a vendor that never answers hits the headers timeout: VENDOR_TIMEOUT, kind timeout, retryable', async () => {
    const vendor = await startFakeVendor(() => undefined);
    const error = await rejectionOf(
      clientFor(vendor, { headersTimeoutMs: 100 }).call(
        'lawsuits-summary',
        parsed('lawsuits-summary', PARAMS),
      ),
    );
    expect(error).toMatchObject({ code: 'VENDOR_TIMEOUT', kind: 'timeout', retryable: true });
    expect((error as VendorError).details).toMatchObject({ cause: 'UND_ERR_HEADERS_TIMEOUT' });
  });

  it('a body that stalls hits the body timeout', async () => {
    const vendor = await startFakeVendor((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"id":');
    });
    const error = await rejectionOf(
      clientFor(vendor, { bodyTimeoutMs: 100 }).call('lawsuits-summary', parsed('lawsuits-summary', PARAMS)),
    );
    expect(error).toMatchObject({ code: 'VENDOR_TIMEOUT', details: { cause: 'UND_ERR_BODY_TIMEOUT' } });
  });

  it('a body above maxResponseBytes is upstream_rejected and not retryable', async () => {
    const vendor = await startFakeVendor(replyJson(200, summarySample));
    const error = await rejectionOf(
      clientFor(vendor, { maxResponseBytes: 16 }).call(
        'lawsuits-summary',
        parsed('lawsuits-summary', PARAMS),
      ),
    );
    expect(error).toMatchObject({
      code: 'VENDOR_RESPONSE_TOO_LARGE',
      kind: 'internal',
      retryable: false,
    });
  });

  it("the caller's abort signal cancels the call with VENDOR_ABORTED", async () => {
    const vendor = await startFakeVendor(() => undefined);
    const controller = new AbortController();
    const pending = clientFor(vendor).call('lawsuits-summary', parsed('lawsuits-summary', PARAMS), {
      signal: controller.signal,
    });
    setTimeout(() => {
      controller.abort();
    }, 50);
    expect(await rejectionOf(pending)).toMatchObject({ code: 'VENDOR_ABORTED', retryable: true });
  });

  it('a call after close() fails with VENDOR_CLIENT_CLOSED', async () => {
    const vendor = await startFakeVendor(replyJson(200, summarySample));
    const client = clientFor(vendor);
    await client.close();
    expect(
      await rejectionOf(client.call('lawsuits-summary', parsed('lawsuits-summary', PARAMS))),
    ).toMatchObject({ code: 'VENDOR_CLIENT_CLOSED' });
  });
});
