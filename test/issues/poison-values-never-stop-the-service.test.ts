/**
 * Issue 14, cases 1 and 2: a value nested thousands of levels deep overflowed the stack while
 * its dead letter was encoded, and a 3 MB value's dead letter exceeded the errors topic's
 * message limit; both were retried until the process exited, on every replica. Each must be
 * dead-lettered, and the valid request behind it on the same key answered, with no exit.
 */
import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { OutcomeCollector, publish, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const { kafka } = stack;
let collector: OutcomeCollector;
const fatal: unknown[] = [];
const prefix = testPrefix('poison');
const topics = topicNames(prefix);
const topic = topics.request('lawsuits-summary');

beforeAll(async () => {
  ({ collector } = await stack.startAt(prefix, {
    knobs: { latencyMeanMs: 1, latencyJitterMs: 1 },
    service: { onFatal: (error) => fatal.push(error) },
    // Upstream may allow larger messages than the errors topic does.
    largeValues: { topic, maxBytes: 8 << 20 },
  }));
}, 60_000);

function valid(requestId: string, i: number): object {
  return { requestId, params: { taxId: cpfFor('happy', 9_000 + i) } };
}

describe('a poison value is dead-lettered and the partition goes on', () => {
  it('JSON nested 6,000 levels deep becomes invalid_request with its raw bytes', async () => {
    const deep = `{"requestId":"deep-1","params":{"taxId":"x"},"metadata":${'{"a":'.repeat(6_000)}1${'}'.repeat(6_000)}}`;
    await publish(kafka, topic, [
      { key: 'same-key', value: Buffer.from(deep) },
      { key: 'same-key', value: valid('after-deep', 1) },
    ]);
    await collector.waitFor(
      () => collector.results().some((r) => r.value.requestId === 'after-deep'),
      60_000,
      'the valid request behind the deep one',
    );
    const dead = collector.errors().find((e) => e.key === 'same-key');
    expect(dead?.value.error).toMatchObject({ kind: 'invalid_request' });
    expect((dead?.value.error as { message: string }).message).toContain('MAX_JSON_DEPTH');
    expect((dead?.value.request as { raw: string }).raw).toBe(Buffer.from(deep).toString('base64'));
    expect(fatal).toEqual([]);
  });

  it('3 MB of random bytes becomes a dead letter that fits, with a prefix, sha256 and length', async () => {
    const bytes = randomBytes(3 * 1024 * 1024);
    await publish(kafka, topic, [
      { key: 'big-key', value: bytes },
      { key: 'big-key', value: valid('after-big', 2) },
    ]);
    await collector.waitFor(
      () => collector.results().some((r) => r.value.requestId === 'after-big'),
      90_000,
      'the valid request behind the large one',
    );
    const dead = collector.errors().find((e) => e.key === 'big-key');
    const request = dead?.value.request as {
      raw: string;
      rawBytes: number;
      rawSha256: string;
      rawTruncated: boolean;
    };
    expect(dead?.value.error).toMatchObject({ kind: 'invalid_request' });
    expect((dead?.value.error as { message: string }).message).toMatch(
      /MAX_REQUEST_BYTES.*first \d+ of its 3145728 raw bytes/,
    );
    expect(request.rawBytes).toBe(bytes.length);
    expect(request.rawTruncated).toBe(true);
    const prefixBytes = Buffer.from(request.raw, 'base64');
    expect(prefixBytes.length).toBeGreaterThan(0);
    expect(prefixBytes.equals(bytes.subarray(0, prefixBytes.length))).toBe(true);
    const { createHash } = await import('node:crypto');
    expect(request.rawSha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(fatal).toEqual([]);
  });
});
