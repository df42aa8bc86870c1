/**
 * The CPU cost of encryption at rest per paid outcome, in one process: what the idempotency
 * store does to an outcome on its way to Redis and back (JSON, gzip from 16 KiB, then
 * AES-256-GCM seal and open), with and without the cipher, in turns, for outcome sizes from a
 * lawsuits summary to a face lookup carrying document images.
 * `npx tsx bench/at-rest-cost.ts` (BENCH_AT_REST_ROUNDS, default 5).
 */
import { randomBytes } from 'node:crypto';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { DataCipher } from '../src/at-rest/cipher.js';
import { SubjectIndex } from '../src/at-rest/subjects.js';
import { openStoredValue, sealForRedis } from '../src/at-rest/stored-values.js';

const cipher = new DataCipher([{ id: 'bench', material: randomBytes(32) }], 'REDIS_ENCRYPTION_KEYS');
const atRest = { cipher, index: new SubjectIndex(randomBytes(32).toString('base64')) };
const ROUNDS = Number(process.env.BENCH_AT_REST_ROUNDS ?? 5);

function outcome(bytes: number): object {
  // Text that compresses like a vendor body (names, addresses), plus base64 noise for images.
  const text = 'NOME DA SILVA RUA DAS FLORES 123 SAO PAULO SP ';
  const images = bytes > 16 * 1024 ? randomBytes(Math.floor(bytes * 0.5)).toString('base64') : '';
  return {
    paramsHash: 'a'.repeat(64),
    outcome: {
      status: 'ok',
      response: { body: text.repeat(Math.ceil((bytes - images.length) / text.length)), images },
      vendor: { httpStatus: 200 },
    },
  };
}

function roundTrip(value: object, sealed: boolean): number {
  const json = JSON.stringify(value);
  const encoded = json.length < 16 * 1024 ? json : gzipSync(json, { level: constants.Z_BEST_SPEED });
  const stored = sealForRedis(sealed ? cipher : undefined, encoded, 'vg:idempotency:request:paid:r');
  const buffer = Buffer.isBuffer(stored) ? stored : Buffer.from(stored);
  const opened = openStoredValue(sealed ? atRest : undefined, buffer, 'vg:idempotency:request:paid:r');
  if (!('plain' in opened)) throw new Error(`the value was refused (${opened.refused})`);
  const plain = opened.plain;
  const text = plain[0] === 0x1f ? gunzipSync(plain).toString('utf8') : plain.toString('utf8');
  return text.length;
}

function cpuMicrosPer(value: object, sealed: boolean, iterations: number): number {
  const start = process.cpuUsage();
  for (let i = 0; i < iterations; i += 1) roundTrip(value, sealed);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / iterations;
}

const sizes = [2 * 1024, 16 * 1024, 64 * 1024, 512 * 1024];
console.log('outcome JSON | iterations | CPU µs per store+read, clear | sealed | added');
for (const size of sizes) {
  const value = outcome(size);
  const iterations = Math.max(20, Math.floor(20_000_000 / size));
  for (let i = 0; i < Math.min(iterations, 200); i += 1) roundTrip(value, i % 2 === 0);
  const clear: number[] = [];
  const sealed: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    clear.push(cpuMicrosPer(value, false, iterations));
    sealed.push(cpuMicrosPer(value, true, iterations));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const [c, s] = [median(clear), median(sealed)];
  const bytes = JSON.stringify(value).length;
  console.log(
    `${(bytes / 1024).toFixed(0)} KiB | ${iterations} | ${c.toFixed(1)} | ${s.toFixed(1)} | +${(s - c).toFixed(1)} µs (${((s / c - 1) * 100).toFixed(0)}%)`,
  );
}
