import { request, type Dispatcher } from 'undici';
import { BeforeSendDispatcher, NotSent, type BeforeSendOptions } from './before-send.js';
import { callDeadline } from './call-deadline.js';
import { VendorError, type VendorCall } from './errors.js';
import type { ResolvedVendorOptions } from './options.js';
import type { VendorRequest, VendorResponse } from './types.js';

/**
 * Sends one request to the vendor through the shared agent and reads the whole body. Every
 * request carries `Authorization: ApiKey <key>` (vendor-api.md, "Authentication"); no message
 * built here ever includes a header value.
 */
export function createTransport(
  agent: Dispatcher,
  options: ResolvedVendorOptions,
): (vendorRequest: VendorRequest) => Promise<VendorResponse> {
  const authorization = `ApiKey ${options.apiKey}`;
  const dispatcher = new BeforeSendDispatcher(agent);
  return async (vendorRequest) => {
    const url = `${options.baseUrl}${vendorRequest.path}${queryString(vendorRequest.query ?? [])}`;
    const headers: Record<string, string> = {
      authorization,
      accept: 'application/json',
      'user-agent': options.userAgent,
    };
    let body: string | VendorRequest['form'];
    if (vendorRequest.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(vendorRequest.json);
    } else {
      // undici sets multipart/form-data with its boundary for a FormData body.
      body = vendorRequest.form;
    }
    // undici's body timeout restarts on every chunk, so a vendor trickling a byte at a time
    // would hold the call (and its limiter slot) for ever: one deadline covers the whole call.
    const deadline = callDeadline(vendorRequest.signal, options.callTimeoutMs);
    // The hook travels in the options, where BeforeSendDispatcher reads it.
    const requestOptions: RequestOptions & Pick<BeforeSendOptions, 'beforeSend'> = {
      dispatcher,
      method: vendorRequest.method,
      headers,
      body: body ?? null,
      signal: deadline.signal,
      beforeSend: vendorRequest.beforeSend,
    };
    try {
      const response = await request(url, requestOptions);
      const text = await response.body.text();
      return { status: response.statusCode, headers: response.headers, text };
    } catch (error) {
      // Refused before a byte was written: the caller's own error, not the vendor's.
      if (error instanceof NotSent) throw error.reason;
      throw transportError(vendorRequest.call, error, vendorRequest.signal, deadline.timedOut());
    } finally {
      deadline.done();
    }
  };
}

type RequestOptions = NonNullable<Parameters<typeof request>[1]>;

/**
 * Query string with %20 for blanks (not `+`, which some servers keep literally). Brackets of
 * a key such as `document_types[]` stay literal, as the vendor's samples write them.
 */
export function queryString(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return '';
  const encoded = pairs.map(
    ([key, value]) => `${encodeURIComponent(key).replace(/%5B%5D$/, '[]')}=${encodeURIComponent(value)}`,
  );
  return `?${encoded.join('&')}`;
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'ETIMEDOUT',
  'CALL_DEADLINE',
]);
const CLOSED_CODES = new Set(['UND_ERR_DESTROYED', 'UND_ERR_CLOSED']);

/** Maps what undici or the socket threw to a VendorError (kind, code, retryable). */
export function transportError(
  call: VendorCall,
  error: unknown,
  signal?: AbortSignal,
  timedOut = false,
): VendorError {
  const code = timedOut && signal?.aborted !== true ? 'CALL_DEADLINE' : errorCode(error);
  const where = `${call.route} (${call.operation})`;
  if (signal?.aborted === true) {
    return new VendorError('internal', `vendor call cancelled by the caller: ${where}`, {
      code: 'VENDOR_ABORTED',
      call,
      cause: error,
      retryable: true,
    });
  }
  if (code !== undefined && TIMEOUT_CODES.has(code)) {
    return new VendorError('timeout', `vendor call timed out (${code}): ${where}`, {
      code: 'VENDOR_TIMEOUT',
      call,
      cause: error,
      retryable: true,
      details: { cause: code },
    });
  }
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') {
    // The vendor answered (2xx included) with more than we read: an unusable answer, as a body
    // that is not the documented JSON is (VENDOR_BAD_RESPONSE), not the vendor refusing the
    // request, which `upstream_rejected` says (contract.md: a 4xx other than 404/429).
    return new VendorError('internal', `vendor response larger than maxResponseBytes: ${where}`, {
      code: 'VENDOR_RESPONSE_TOO_LARGE',
      call,
      cause: error,
      retryable: false,
    });
  }
  if (code !== undefined && CLOSED_CODES.has(code)) {
    return new VendorError('internal', `vendor client is closed: ${where}`, {
      code: 'VENDOR_CLIENT_CLOSED',
      call,
      cause: error,
      retryable: true,
    });
  }
  if (code !== undefined && isNetworkCode(code)) {
    return new VendorError('upstream_unavailable', `vendor unreachable (${code}): ${where}`, {
      code: 'VENDOR_NETWORK',
      call,
      cause: error,
      retryable: true,
      details: { cause: code },
    });
  }
  // Anything else (an invalid argument, a bug) would fail the same way on every retry.
  return new VendorError('internal', `vendor call failed in the client (${code ?? 'no code'}): ${where}`, {
    code: 'VENDOR_CLIENT_ERROR',
    call,
    cause: error,
    retryable: false,
    details: { cause: code },
  });
}

/**
 * Socket and DNS failures (ECONNRESET, ECONNREFUSED, EAI_AGAIN...), broken HTTP framing. Not
 * Node's own ERR_* codes (ERR_INVALID_URL, ERR_INVALID_CHAR...): those are bugs in the call.
 */
function isNetworkCode(code: string): boolean {
  return (
    (/^E[A-Z_]+$/.test(code) && !code.startsWith('ERR_')) ||
    code.startsWith('HPE_') ||
    code === 'UND_ERR_SOCKET' ||
    code === 'UND_ERR_INFO' ||
    code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH'
  );
}

function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
