/**
 * The CPU cost, in one process, of turning a paid outcome into its two documents: the record
 * sealed for Redis and the result framed for its topic. `twice`: each document serialised
 * whole (the code before issue 42's change); `once`: the vendor response serialised once and
 * spliced into both (paidJson, resultJson). Both seal the record (AES-256-GCM) and frame the
 * result, in turns, for benchmark (a)'s lawsuits summary (from the sandbox) and for a 64 KiB
 * body. `npx tsx bench/outcome-json-cost.ts` (BENCH_OUTCOME_ROUNDS, default 7).
 */
import { randomBytes } from 'node:crypto';
import { DataCipher } from '../src/at-rest/cipher.js';
import { sealForRedis } from '../src/at-rest/stored-values.js';
import type { ResultEnvelope } from '../src/contract/envelopes.js';
import { jsonOf } from '../src/json-members.js';
import { resultJson } from '../src/producers/output-records.js';
import { paidJson, type PaidOutcome } from '../src/requests/idempotency.js';
import { cpfFor, createSandbox } from '../src/sandbox/index.js';

const ROUNDS = Number(process.env.BENCH_OUTCOME_ROUNDS ?? 7);
const cipher = new DataCipher([{ id: 'bench', material: randomBytes(32) }], 'REDIS_ENCRYPTION_KEYS');
const CONTEXT = 'vg:idempotency:request:paid:r';

async function summaryBody(): Promise<unknown> {
  const sandbox = await createSandbox({ apiKey: 'bench-key' });
  try {
    const url = `${sandbox.url}/lawsuits-summary/v1?taxId=${cpfFor('happy', 7)}`;
    const answer = await fetch(url, { headers: { authorization: 'ApiKey bench-key' } });
    return await answer.json();
  } finally {
    await sandbox.close();
  }
}

function documents(response: unknown): { paid: PaidOutcome; result: ResultEnvelope } {
  const origin = { topic: 'verification.requests.lawsuits-summary', partition: 3, offset: '123456' };
  const outcome = { status: 'ok' as const, response, vendor: { id: 'v', version: '1', httpStatus: 200 } };
  return {
    paid: { paramsHash: 'a'.repeat(64), operation: 'lawsuits-summary', origin, outcome },
    result: {
      requestId: 'b3c1f7a2-2f0e-4b8e-9c55-0d6f1c2a9e41',
      operation: 'lawsuits-summary',
      status: 'ok',
      params: { taxId: cpfFor('happy', 7) },
      response,
      vendor: outcome.vendor,
      attempts: 1,
      receivedAt: '2026-11-28T10:00:00.000Z',
      completedAt: '2026-11-28T10:00:00.004Z',
      origin,
    },
  };
}

function frame(json: string): Buffer {
  const framed = Buffer.allocUnsafeSlow(5 + Buffer.byteLength(json));
  framed.writeInt32BE(1, 1);
  framed.write(json, 5);
  return framed;
}

function twice({ paid, result }: ReturnType<typeof documents>): number {
  const stored = sealForRedis(cipher, JSON.stringify(paid), CONTEXT);
  return stored.length + frame(JSON.stringify(result)).length;
}

function once({ paid, result }: ReturnType<typeof documents>): number {
  const responseJson = jsonOf(result.response);
  const stored = sealForRedis(cipher, paidJson(paid, responseJson), CONTEXT);
  return stored.length + frame(resultJson(result, responseJson)).length;
}

function cpuMicrosPer(run: () => number, iterations: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i += 1) run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / iterations;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

const summary = await summaryBody();
const bodies: [string, unknown][] = [
  ['(a) lawsuits summary', summary],
  ['64 KiB body', { data: 'NOME DA SILVA RUA DAS FLORES 123 '.repeat(2_000) }],
];
console.log('response | JSON bytes | CPU µs twice | once | once/twice (median of rounds, in turns)');
for (const [name, body] of bodies) {
  const docs = documents(body);
  const bytes = JSON.stringify(body).length;
  const iterations = Math.max(200, Math.floor(40_000_000 / bytes));
  for (let i = 0; i < 500; i += 1) (i % 2 === 0 ? twice : once)(docs);
  const [a, b]: [number[], number[]] = [[], []];
  for (let round = 0; round < ROUNDS; round += 1) {
    a.push(cpuMicrosPer(() => twice(docs), iterations));
    b.push(cpuMicrosPer(() => once(docs), iterations));
  }
  const [t, o] = [median(a), median(b)];
  console.log(`${name} | ${bytes} | ${t.toFixed(2)} | ${o.toFixed(2)} | ${(o / t).toFixed(2)}`);
}
