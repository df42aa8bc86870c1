import { describe, expect, it } from 'vitest';
import { clientFor, rejectionOf, startFakeVendor } from '../unit/vendor-api/client/fake-vendor.js';

const PARAMS = { taxId: '52998224725' };

describe('a vendor that trickles or floods (issue 14, case 7)', () => {
  it('a body sent a byte at a time is cut by the whole-call deadline, not held per chunk', async () => {
    const timers: NodeJS.Timeout[] = [];
    const vendor = await startFakeVendor((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      // One byte every 50 ms: each chunk resets undici's 200 ms body timeout.
      timers.push(setInterval(() => response.write(' '), 50));
    });
    try {
      const client = clientFor(vendor, { bodyTimeoutMs: 200, headersTimeoutMs: 200, callTimeoutMs: 400 });
      const error = await rejectionOf(client.call('lawsuits-summary', PARAMS));
      expect(error).toMatchObject({
        code: 'VENDOR_TIMEOUT',
        kind: 'timeout',
        retryable: true,
        details: { cause: 'CALL_DEADLINE' },
      });
    } finally {
      for (const timer of timers) clearInterval(timer);
    }
  });

  it('a response above the default size limit (16 MiB) is refused as internal (an unusable answer, not a vendor 4xx)', async () => {
    const body = Buffer.alloc(17 * 1024 * 1024, 0x20);
    const vendor = await startFakeVendor((_, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      response.end(body);
    });
    const error = await rejectionOf(clientFor(vendor).call('lawsuits-summary', PARAMS));
    expect(error).toMatchObject({
      code: 'VENDOR_RESPONSE_TOO_LARGE',
      kind: 'internal',
      retryable: false,
    });
    expect((error as Error).message).toContain('larger than maxResponseBytes');
  });
});
