import type { LookupFunction } from 'node:net';
import { Agent, request } from 'undici';
import { VendorError, type VendorCall } from './errors.js';
import { checkSelfieUrl, guardedLookup, parseAllowList } from './selfie-guard.js';

const CALL: VendorCall = { operation: 'face-document-lookup', route: 'GET {selfie url}' };

export interface SelfieDownloadOptions {
  maxBytes: number;
  timeoutMs: number;
  /** SELFIE_URL_ALLOW: host names or CIDRs that may be reached (and by http). */
  allow: readonly string[];
  /** Resolver of host names; Node's by default (tests point names at loopback with it). */
  lookup?: LookupFunction | undefined;
}

export interface SelfieDownloader {
  download(url: string, signal?: AbortSignal): Promise<Uint8Array>;
  close(): Promise<void>;
}

/**
 * Fetches a selfie given by URL, so that it can be uploaded as the multipart `selfie` file
 * (the face lookup takes a file only: vendor-api.md, "POST /ocr-by-face/v1/tax-id/{CPF}").
 * The URL comes from a Kafka message, so the download has its own agent, whose sockets only
 * reach allowed addresses (selfie-guard.ts), never follows a redirect, and never carries the
 * vendor's API key. Every refusal or failure is the same `invalid_request` with the same
 * reason: which address, port or answer was behind the URL is nobody's business upstream.
 */
export function createSelfieDownloader(options: SelfieDownloadOptions): SelfieDownloader {
  const allow = parseAllowList(options.allow);
  const agent = new Agent({
    connections: 16,
    keepAliveTimeout: 1_000,
    maxResponseSize: options.maxBytes,
    connect: { timeout: options.timeoutMs, lookup: guardedLookup(allow, options.lookup) },
  });
  let closing: Promise<void> | undefined;
  return {
    async download(url, signal) {
      try {
        return await fetchJpeg(agent, checkSelfieUrl(url, allow), options, signal);
      } catch (error) {
        if (signal?.aborted === true) throw error;
        throw unusable();
      }
    },
    close: () => (closing ??= agent.close()),
  };
}

async function fetchJpeg(
  agent: Agent,
  url: URL,
  options: SelfieDownloadOptions,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const response = await request(url, {
    dispatcher: agent,
    method: 'GET',
    headers: { accept: 'image/jpeg' },
    signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
  });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new Error(`answered ${response.statusCode}`);
  }
  const bytes = await readBounded(response.body, options.maxBytes);
  if (!(bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)) throw new Error('not a JPEG');
  return bytes;
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
      throw new Error('too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The one answer for every refused or failed download. No cause is attached: dead letters
 * carry error details, and a refused connection, a timeout or a 403 told apart would make the
 * service a port scanner.
 */
export const SELFIE_UNUSABLE_MESSAGE =
  'the selfie URL could not be used: give a public https URL answering 200 with a JPEG image, or the selfie as base64';

function unusable(): VendorError {
  return new VendorError('invalid_request', SELFIE_UNUSABLE_MESSAGE, {
    code: 'SELFIE_UNUSABLE',
    call: CALL,
    retryable: false,
  });
}
