/**
 * Issue 14, case 9: pino's redaction paths reached one level, so a nested cpf, partName, nis,
 * birthdate, url or metadata reached the logs. This walks every operation's params and the
 * sandbox's real response to them, logs each nested a few levels deep, and checks that no value
 * that looks like personal data (by its key or its form) comes out.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../../src/contract/operations.js';
import { sampleParams } from '../../../src/demo/samples.js';
import { createHandlers } from '../../../src/handlers/index.js';
import { createLogger } from '../../../src/observability/logger.js';
import { plainJsonCodec } from '../../../src/producers/value-codec.js';
import { createSandbox, type Sandbox } from '../../../src/sandbox/index.js';
import { createVendorClient, type VendorClient } from '../../../src/vendor-api/client.js';

let sandbox: Sandbox;
let vendor: VendorClient;

beforeAll(async () => {
  sandbox = await createSandbox({ apiKey: 'k', knobs: { latencyMeanMs: 0, latencyJitterMs: 0 } });
  vendor = createVendorClient({
    baseUrl: sandbox.url,
    apiKey: 'k',
    connections: 4,
    connectTimeoutMs: 2_000,
    headersTimeoutMs: 5_000,
    bodyTimeoutMs: 5_000,
  });
});

afterAll(async () => {
  await vendor.close();
  await sandbox.close();
});

const PERSONAL_KEY =
  /^(cpf|cnpj|taxid|name|nome|nis|birthdate|datanascimento|partname|url\w*|base64|selfie|licenseplate|documentnumber|proprietaryname|proprietarydocumentnumber|\w*document|renavam|chassis)$/i;
const PERSONAL_FORM = [
  /^\d{3}\.?\d{3}\.?\d{3}-?\d{2}$/, // CPF
  /^\d{2}\.?\d{3}\.?\d{3}\/?\d{4}-?\d{2}$/, // CNPJ
  /^[A-Z]{3}-?\d[A-Z0-9]\d{2}$/, // plate
  /^https?:\/\//,
  /^[A-Za-z0-9+/=]{200,}$/, // an image
];

/** String leaves that are personal data by their key or their form, at any depth. */
function personalValues(value: unknown, key = '', out: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value.length >= 4 && (PERSONAL_KEY.test(key) || PERSONAL_FORM.some((re) => re.test(value))))
      out.push(value);
  } else if (Array.isArray(value)) {
    for (const item of value) personalValues(item, key, out);
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) personalValues(v, k, out);
  }
  return out;
}

function logged(object: object): string {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  createLogger({ level: 'info', destination }).info(object, 'nested');
  return lines.join('');
}

describe('log redaction at any depth', () => {
  it.each(OPERATIONS)('%s: no personal value of its params or response reaches a log line', async (op) => {
    const handlers = createHandlers({ vendor });
    const params = sampleParams(op, 3);
    const outcome = await handlers[op](params as never, {
      requestId: 'r-1',
      metadata: { customer: 'MARIA DA SILVA' },
      origin: { topic: 't', partition: 0, offset: '0' },
      signal: new AbortController().signal,
    });
    // The response also under a key of its own, so that its own field names are what is tested.
    const shapes = { params, outcome, payload: outcome.response, metadata: { customer: 'MARIA DA SILVA' } };
    const secrets = personalValues(shapes);
    expect(secrets.length).toBeGreaterThan(0);
    const line = logged({
      outer: { inner: [{ deeper: shapes }] },
      err: Object.assign(new Error('x'), { shapes }),
    });
    for (const secret of secrets) expect(line).not.toContain(secret);
    expect(line).toContain('[redacted]');
  });

  it('a JSON parse error names neither the input nor keeps it as a cause', async () => {
    let failure = new Error('decoded');
    try {
      await plainJsonCodec().decode(Buffer.from('Maria da Silva, CPF 123.456.789-09'));
    } catch (error) {
      failure = error as Error;
    }
    expect(failure.message).toMatch(/^value is not valid JSON/);
    expect(failure.message).not.toContain('Maria');
    expect(failure.cause).toBeUndefined();
    expect(logged({ err: failure })).not.toContain('Maria');
  });
});
