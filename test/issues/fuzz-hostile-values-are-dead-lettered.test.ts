/**
 * Issue 14, fuzz: generated hostile values mixed with valid requests on the real stack. Every
 * hostile value must be dead-lettered as invalid_request with a reason, every valid request
 * answered, the service process never exits, and its memory must not grow with the run.
 * FUZZ_COUNT sets the number of values (default 1,000; the full run is 10,000).
 */
import { randomBytes } from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { OutcomeCollector, publish, testPrefix, type RequestMessage } from '../helpers/service.js';
import { seededRandom } from '../helpers/documents.js';
import { rssMiB } from '../helpers/service-process.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const COUNT = Number(process.env.FUZZ_COUNT ?? '1000');
const stack = useTestKafka();
const { kafka } = stack;
/** The service as its own process: an exit is seen, and its RSS is its own, not the test's. */
let service: ChildProcess;
let collector: OutcomeCollector;
const exits: (number | null)[] = [];
const prefix = testPrefix('fuzz');
const topic = topicNames(prefix).request('lawsuits-summary');

beforeAll(async () => {
  ({ child: service, collector } = await stack.startProcessAt(prefix, {
    knobs: { latencyMeanMs: 1, latencyJitterMs: 1 },
    largeValues: { topic, maxBytes: 4 << 20 },
  }));
  service.once('exit', (code) => exits.push(code));
  // Its logs are not read: drained so that the pipes never fill.
  service.stdout?.resume();
  service.stderr?.resume();
}, 60_000);

const valid = (i: number): string =>
  JSON.stringify({ requestId: `ok-${i}`, params: { taxId: cpfFor('happy', 20_000 + i) } });

/** In the order of HOSTILE, for the run's counts. */
const KINDS = [
  'random bytes',
  'truncated JSON',
  'wrong shape',
  '__proto__ and constructor keys',
  'nesting 100 to 100,000 levels',
  'huge string',
  'invalid UTF-8',
  'nulls',
  'wrong framing byte',
  'unknown schema id, wrong shape',
] as const;

const HOSTILE: ((i: number, rnd: () => number) => Buffer)[] = [
  (_i, rnd) => randomBytes(1 + Math.floor(rnd() * 4096)),
  (i, rnd) => Buffer.from(valid(i).slice(0, 1 + Math.floor(rnd() * (valid(i).length - 2)))),
  (i, rnd) =>
    Buffer.from(
      JSON.stringify(
        [[1, 'x'], 42, 'string', null, { requestId: i }, { params: null }][Math.floor(rnd() * 6)],
      ),
    ),
  (i) =>
    Buffer.from(
      `{"requestId":"h-${i}","params":{"__proto__":{"taxId":"${cpfFor('happy', i)}"},"constructor":{"prototype":{"polluted":true}}}}`,
    ),
  (_i, rnd) => {
    const depth = Math.floor(100 * 1000 ** rnd());
    return Buffer.from(`{"requestId":"deep","params":${'['.repeat(depth)}${']'.repeat(depth)}}`);
  },
  (i, rnd) =>
    Buffer.from(
      JSON.stringify({ requestId: `huge-${i}-${'x'.repeat(200 + Math.floor(rnd() * 900_000))}`, params: {} }),
    ),
  (i) =>
    Buffer.concat([
      Buffer.from(`{"requestId":"u-${i}`),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('","params":{}}'),
    ]),
  (i) => Buffer.from(JSON.stringify({ requestId: null, params: { taxId: null }, [`k${i}`]: null })),
  (i, rnd) => Buffer.concat([Buffer.from([rnd() < 0.5 ? 1 : 0xff, 0, 0, 0, 1]), Buffer.from(valid(i))]),
  // A request is JSON whatever its framing (issue 37): a valid one framed with an unknown id is
  // answered (test/issues/request-framed-with-a-shifted-schema-id-is-answered.test.ts), one of
  // the wrong shape is dead-lettered.
  (i, rnd) => {
    const frame = Buffer.alloc(5);
    frame.writeUInt32BE(900_000_000 + Math.floor(rnd() * 1_000_000), 1);
    return Buffer.concat([frame, Buffer.from(JSON.stringify({ requestId: `unknown-id-${i}`, params: [i] }))]);
  },
];

/** Sends in chunks of about 1 MiB: one produce request must fit the topic's 4 MiB limit. */
async function publishChunked(messages: RequestMessage[]): Promise<void> {
  let chunk: RequestMessage[] = [];
  let bytes = 0;
  for (const message of messages) {
    const size = Buffer.isBuffer(message.value) ? message.value.length : 1_000;
    if (chunk.length > 0 && bytes + size > 2 ** 20) {
      await publish(kafka, topic, chunk);
      chunk = [];
      bytes = 0;
    }
    chunk.push(message);
    bytes += size;
  }
  if (chunk.length > 0) await publish(kafka, topic, chunk);
}

describe('fuzz: hostile values among valid requests', () => {
  it(`${COUNT} values: every hostile one dead-lettered, every valid one answered, no exit`, async () => {
    const rnd = seededRandom(14);
    const messages: RequestMessage[] = [];
    let hostile = 0;
    const byKind: Record<string, number> = {};
    const validIds: string[] = [];
    for (let i = 0; i < COUNT; i += 1) {
      if (i % 10 === 0) {
        validIds.push(`ok-${i}`);
        messages.push({ key: `ok-${i}`, value: Buffer.from(valid(i)) });
      } else {
        // Its own count, not i: every tenth i is a valid request, and each kind must come up.
        const make = HOSTILE[hostile % HOSTILE.length]!;
        const kind = KINDS[hostile % KINDS.length]!;
        hostile += 1;
        byKind[kind] = (byKind[kind] ?? 0) + 1;
        messages.push({ key: rnd() < 0.1 ? null : `h-${i}`, value: make(i, rnd) });
      }
    }
    const half = Math.floor(messages.length / 2);
    await publishChunked(messages.slice(0, half));
    await collector.waitFor(() => collector.received.length >= half, 300_000, 'the first half');
    const rssAfterFirstHalf = rssMiB(service.pid!);
    await publishChunked(messages.slice(half));
    const progress = setInterval(() => {
      console.log(`fuzz: ${collector.received.length} outcomes of ${COUNT}; exits ${exits.length}`);
    }, 10_000);
    await collector
      .waitFor(() => collector.received.length >= COUNT, 600_000, 'every outcome')
      .finally(() => {
        clearInterval(progress);
      });
    const errors = collector.errors();
    const results = collector.results();
    console.log(
      JSON.stringify({
        values: COUNT,
        hostile,
        byKind,
        valid: validIds.length,
        deadLetters: errors.length,
        results: results.length,
        serviceRssMiBAfterFirstHalf: rssAfterFirstHalf,
        serviceRssMiBAtEnd: rssMiB(service.pid!),
      }),
    );
    expect(errors).toHaveLength(hostile);
    for (const letter of errors) {
      const error = letter.value.error as { kind: string; message: string };
      expect(error.kind).toBe('invalid_request');
      expect(error.message.length).toBeGreaterThan(0);
    }
    expect(new Set(results.map((r) => r.value.requestId))).toEqual(new Set(validIds));
    expect(exits).toEqual([]);
    // Flat: after the first half the heap has met every kind of value; the second half, as
    // large again, may not grow the service by more than a small margin.
    expect(rssMiB(service.pid!) - rssAfterFirstHalf).toBeLessThan(64);
  }, 900_000);
});
