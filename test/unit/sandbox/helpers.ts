import { request, FormData } from 'undici';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import type { KnobsPatch } from '../../../src/sandbox/knobs.js';

export const API_KEY = 'test-key';
export const AUTH = { authorization: `ApiKey ${API_KEY}` };

export interface Answer<T = unknown> {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: T;
}

export interface Envelope<T> {
  id: string;
  version: string;
  data: T;
  metadata: { timeSpent: number } & Record<string, unknown>;
}

export interface ErrorEnvelope {
  id: string;
  version?: string;
  error: { statusCode: number; error: string; message: string };
}

export async function startSandbox(knobs: KnobsPatch = {}): Promise<Sandbox> {
  return createSandbox({ apiKey: API_KEY, port: 0, knobs });
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  json?: unknown;
  form?: FormData;
  auth?: boolean;
}

/** One real HTTP call; the body is parsed as JSON when it is JSON and typed as the test expects. */
export async function call<T = ErrorEnvelope>(
  sandbox: Sandbox,
  path: string,
  options: CallOptions = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...(options.auth === false ? {} : AUTH), ...options.headers };
  let body: string | FormData | undefined;
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.json);
  } else if (options.form !== undefined) {
    body = options.form;
  }
  const response = await request(`${sandbox.url}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  });
  const text = await response.body.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.statusCode, headers: response.headers, body: parsed as T };
}

export const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(60, 7)]);
export const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(60, 7)]);

export function formWith(files: Record<string, Buffer>, type = 'image/jpeg'): FormData {
  const form = new FormData();
  for (const [name, content] of Object.entries(files)) {
    form.append(name, new Blob([content], { type }), `${name}.jpg`);
  }
  return form;
}

/** Everything but the per-call members, for determinism checks. */
export function withoutVolatile(body: object): unknown {
  const { id: _id, metadata, ...rest } = body as { id?: string; metadata?: Record<string, unknown> };
  const { timeSpent: _t, ...meta } = metadata ?? {};
  return { ...rest, metadata: meta };
}
