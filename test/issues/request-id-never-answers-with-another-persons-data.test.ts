/**
 * Issue 14, cases 3 and 4: the dedupe key was only operation and requestId, so a reused
 * requestId was answered with another person's vendor response; values were decoded lossily, so
 * requestIds differing in one invalid byte became one; and copies of one requestId in flight at
 * the same time each paid. On the real broker, registry, Redis and sandbox.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor, type Sandbox } from '../../src/sandbox/index.js';
import { OutcomeCollector, publish, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const { kafka } = stack;
let sandbox: Sandbox;
let collector: OutcomeCollector;
const prefix = testPrefix('reuse');
const topic = topicNames(prefix).request('lawsuits-summary');

beforeAll(async () => {
  // Slow enough that concurrent copies overlap in flight.
  ({ sandbox, collector } = await stack.startAt(prefix, {
    knobs: { latencyMeanMs: 400, latencyJitterMs: 1 },
  }));
}, 60_000);

const billed = (): number => sandbox.counters().byOperation['lawsuits-summary'] ?? 0;
const outcomesOf = (requestId: string) =>
  [...collector.results(), ...collector.errors()].filter((r) => r.value.requestId === requestId);

describe('one requestId, one person', () => {
  it('a requestId already paid with other params is dead-lettered and pays nothing', async () => {
    const a = cpfFor('happy', 7_001);
    const b = cpfFor('happy', 7_002);
    await publish(kafka, topic, [{ key: a, value: { requestId: 'reused-1', params: { taxId: a } } }]);
    await collector.waitFor(() => outcomesOf('reused-1').length === 1, 60_000, 'the first result');
    const before = billed();
    await publish(kafka, topic, [{ key: b, value: { requestId: 'reused-1', params: { taxId: b } } }]);
    await collector.waitFor(() => outcomesOf('reused-1').length === 2, 60_000, 'the reuse outcome');
    const second = outcomesOf('reused-1').find((r) => r.topic === collector.topics.errors);
    expect(second?.value.error).toMatchObject({
      kind: 'invalid_request',
      message: 'requestId already used with other params',
    });
    expect(billed()).toBe(before);
  });

  it('requestIds that differ only in an invalid UTF-8 byte are both dead-lettered with their bytes', async () => {
    const values = [0xff, 0xfe].map((byte, i) =>
      Buffer.concat([
        Buffer.from('{"requestId":"utf-'),
        Buffer.from([byte]),
        Buffer.from(`","params":{"taxId":"${cpfFor('happy', 7_100 + i)}"}}`),
      ]),
    );
    const before = billed();
    await publish(
      kafka,
      topic,
      values.map((value, i) => ({ key: `utf-${i}`, value })),
    );
    const dead = () => collector.errors().filter((e) => e.key?.startsWith('utf-'));
    await collector.waitFor(() => dead().length === 2, 60_000, 'two dead letters');
    for (const letter of dead()) {
      expect(letter.value.error).toMatchObject({
        kind: 'invalid_request',
        message: 'value is not valid UTF-8',
      });
      const raw = Buffer.from((letter.value.request as { raw: string }).raw, 'base64');
      expect(values.some((value) => value.equals(raw))).toBe(true);
    }
    expect(billed()).toBe(before);
  });

  it('three copies of one requestId in flight at once make one billable call', async () => {
    const taxId = cpfFor('happy', 7_200);
    const before = billed();
    await publish(
      kafka,
      topic,
      ['k1', 'k2', 'k3'].map((key) => ({ key, value: { requestId: 'copies-1', params: { taxId } } })),
    );
    await collector.waitFor(() => outcomesOf('copies-1').length === 3, 60_000, 'three outcomes');
    const results = outcomesOf('copies-1');
    expect(results.every((r) => r.value.status === 'ok')).toBe(true);
    const vendorIds = new Set(results.map((r) => JSON.stringify(r.value.vendor)));
    expect(vendorIds.size).toBe(1);
    expect(billed() - before).toBe(1);
  });
});
