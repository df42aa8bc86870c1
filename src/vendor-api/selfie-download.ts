import { request } from 'undici';
import { VendorError, type VendorCall } from './errors.js';
import { transportError } from './transport.js';
import type { VendorContext } from './types.js';

const CALL: VendorCall = { operation: 'face-document-lookup', route: 'GET {selfie url}' };

/**
 * Fetches a selfie given by URL, so that it can be uploaded as the multipart `selfie` file:
 * the face lookup takes a file only (vendor-api.md, "POST /ocr-by-face/v1/tax-id/{CPF}").
 * Bounded in time and size; redirects are not followed (a pre-signed link answers directly);
 * the vendor's API key is never sent to that host. A URL that answers 4xx, too large or not
 * JPEG is the request's fault (invalid_request); 5xx, 429, network and timeout may pass.
 */
export async function downloadSelfie(
  context: VendorContext,
  url: string,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const { maxBytes, timeoutMs } = context.options.selfieDownload;
  const deadline = AbortSignal.timeout(timeoutMs);
  const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
  try {
    const response = await request(url, {
      dispatcher: context.agent,
      method: 'GET',
      headers: { accept: 'image/jpeg' },
      signal: combined,
    });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw statusError(response.statusCode);
    }
    const declared = Number(response.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      response.body.destroy();
      throw unusable(`the selfie is larger than ${maxBytes} bytes`);
    }
    const bytes = await readBounded(response.body, maxBytes);
    if (!(bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)) {
      throw unusable('the selfie is not a JPEG image (the vendor accepts JPEG/JPG only)');
    }
    return bytes;
  } catch (error) {
    if (error instanceof VendorError) throw error;
    throw downloadFailure(error, deadline, signal);
  }
}

async function readBounded(
  body: AsyncIterable<Uint8Array> & { destroy(): unknown },
  maxBytes: number,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.length;
    if (total > maxBytes) {
      body.destroy();
      throw unusable(`the selfie is larger than ${maxBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function statusError(status: number): VendorError {
  const passing = status === 429 || status >= 500;
  return new VendorError(
    passing ? 'upstream_unavailable' : 'invalid_request',
    `selfie URL answered ${status}`,
    {
      code: 'SELFIE_DOWNLOAD_FAILED',
      call: CALL,
      retryable: passing,
      details: { selfieStatus: status },
    },
  );
}

function unusable(message: string): VendorError {
  return new VendorError('invalid_request', message, {
    code: 'SELFIE_UNUSABLE',
    call: CALL,
    retryable: false,
  });
}

function downloadFailure(
  error: unknown,
  deadline: AbortSignal,
  signal: AbortSignal | undefined,
): VendorError {
  if (deadline.aborted && signal?.aborted !== true) {
    return new VendorError('timeout', 'selfie download timed out', {
      code: 'SELFIE_DOWNLOAD_FAILED',
      call: CALL,
      cause: error,
      retryable: true,
    });
  }
  const mapped = transportError(CALL, error, signal);
  if (mapped.code !== 'VENDOR_NETWORK') return mapped;
  return new VendorError('upstream_unavailable', `selfie download failed: ${mapped.message}`, {
    code: 'SELFIE_DOWNLOAD_FAILED',
    call: CALL,
    cause: error,
    retryable: true,
  });
}
