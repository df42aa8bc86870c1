import { describe, expect, it } from 'vitest';
import { transportError } from '../../../src/vendor-api/transport.js';

const call = { operation: 'lawsuits-summary', route: 'GET /lawsuits-summary/v1' };
const failure = (code: string): Error => Object.assign(new Error('failed'), { code });

describe('transport errors', () => {
  it.each(['ECONNRESET', 'ECONNREFUSED', 'EAI_AGAIN', 'EPIPE', 'HPE_INVALID_CONSTANT', 'UND_ERR_SOCKET'])(
    '%s is a network failure: VENDOR_NETWORK, retryable',
    (code) => {
      expect(transportError(call, failure(code))).toMatchObject({
        code: 'VENDOR_NETWORK',
        kind: 'upstream_unavailable',
        retryable: true,
      });
    },
  );

  it.each(['ERR_INVALID_URL', 'ERR_INVALID_CHAR', 'ERR_INVALID_ARG_TYPE'])(
    "Node's own %s is a bug in the call: VENDOR_CLIENT_ERROR, never retried",
    (code) => {
      expect(transportError(call, failure(code))).toMatchObject({
        code: 'VENDOR_CLIENT_ERROR',
        kind: 'internal',
        retryable: false,
      });
    },
  );
});
