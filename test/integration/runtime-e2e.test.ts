/**
 * The pipeline of contract.md end to end on the real stack: every operation, CloudEvents
 * headers and the registry's wire format, per-key order under concurrency, poison messages.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, topicNames } from '../../src/contract/operations.js';
import { sampleKey, sampleParams } from '../../src/demo/samples.js';
import { cpfFor, type Sandbox } from '../../src/sandbox/index.js';
import { OutcomeCollector, publish, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const { kafka } = stack;
let sandbox: Sandbox;
let collector: OutcomeCollector;
const prefix = testPrefix('e2e');
const topics = topicNames(prefix);

beforeAll(async () => {
  ({ sandbox, collector } = await stack.startAt(prefix, {
    knobs: { latencyMeanMs: 5, latencyJitterMs: 5 },
    env: { MAX_REQUEST_BYTES: String(512 * 1024) },
  }));
});

describe('runtime end to end', () => {
  it('every operation reaches its result through the real broker, registry and sandbox', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    for (const operation of OPERATIONS) {
      const params = sampleParams(operation, 1);
      await publish(kafka, topics.request(operation), [
        {
          key: sampleKey(params),
          value: { requestId: `all-${operation}`, params, source: 'it', metadata: { case: 'A-17' } },
          headers: { traceparent },
        },
      ]);
    }
    await collector.waitFor(
      () => OPERATIONS.every((op) => collector.results().some((r) => r.value.requestId === `all-${op}`)),
      60_000,
      'a result per operation',
    );
    for (const operation of OPERATIONS) {
      const result = collector.results().find((r) => r.value.requestId === `all-${operation}`);
      expect(result?.topic).toBe(topics.result(operation));
      expect(result?.value).toMatchObject({
        operation,
        status: operation === 'vehicle-async' ? 'accepted' : 'ok',
        attempts: 1,
        source: 'it',
        metadata: { case: 'A-17' },
        vendor: { httpStatus: 200 },
        origin: { topic: topics.request(operation) },
      });
      expect(result?.framed).toBe(true);
      expect(result?.key).toBe(sampleKey(sampleParams(operation, 1)));
      expect(result?.headers).toMatchObject({
        'content-type': 'application/json',
        ce_specversion: '1.0',
        ce_type: `verification.result.${operation}`,
        ce_subject: `all-${operation}`,
        traceparent,
      });
    }
    const accepted = collector.results().find((r) => r.value.requestId === 'all-vehicle-async');
    await collector.waitFor(
      () => collector.events().some((e) => e.value.requestId === 'all-vehicle-async'),
      10_000,
      'the pending event',
    );
    expect(collector.events().find((e) => e.value.requestId === 'all-vehicle-async')?.value).toMatchObject({
      status: 'pending',
      searchId: accepted?.value.searchId,
    });
    expect(collector.errors().filter((e) => String(e.value.requestId).startsWith('all-'))).toEqual([]);
  });

  it('keeps per-key order under concurrency beyond the partition count', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => cpfFor('happy', 100 + i));
    const messages = [];
    for (let seq = 0; seq < 15; seq += 1) {
      for (const key of keys)
        messages.push({
          key,
          value: { requestId: `order-${key}-${seq}`, params: { taxId: key }, metadata: { seq: String(seq) } },
        });
    }
    await publish(kafka, topics.request('lawsuits-summary'), messages);
    const mine = () => collector.results().filter((r) => String(r.value.requestId).startsWith('order-'));
    await collector.waitFor(() => mine().length === messages.length, 60_000, 'all ordered results');
    for (const key of keys) {
      const seqs = mine()
        .filter((r) => r.key === key)
        .map((r) => Number((r.value.metadata as Record<string, string>).seq));
      expect(seqs).toEqual([...Array(15).keys()]);
    }
  });

  it('sends each malformed message to the errors topic with the reason and goes on with the partition', async () => {
    const key = cpfFor('happy', 7);
    const unknownSchema = Buffer.concat([
      Buffer.from([0]),
      Buffer.from([0x7f, 0xff, 0xff, 0xf0]),
      Buffer.from('{}'),
    ]);
    await publish(kafka, topics.request('lawsuits-summary'), [
      { key, value: { requestId: 'poison-before', params: { taxId: key } } },
      { key, value: Buffer.from('{"requestId": "poison-json", ') },
      { key, value: unknownSchema },
      { key, value: { requestId: 'poison-params', params: { taxId: '11111111112' } } },
      { key, value: { requestId: 'poison-envelope', params: 'nope' } },
      { key, value: Buffer.alloc(600 * 1024, 0x20) },
      { key, value: { requestId: 'poison-after', params: { taxId: key } } },
    ]);
    await collector.waitFor(
      () => collector.results().some((r) => r.value.requestId === 'poison-after'),
      60_000,
      'the request after the poison',
    );
    await collector.waitFor(
      () => collector.errors().filter((e) => e.key === key).length === 5,
      10_000,
      'five dead letters',
    );
    const errors = collector
      .errors()
      .filter((e) => e.key === key)
      .map(
        (e) =>
          e.value as {
            requestId: string | null;
            error: { kind: string; message: string };
            request: Record<string, unknown>;
          },
      );
    for (const e of errors) expect(e.error.kind).toBe('invalid_request');
    const messages = errors.map((e) => e.error.message);
    expect(messages[0]).toMatch(/not valid JSON/);
    expect(errors[0]?.request).toEqual({
      raw: Buffer.from('{"requestId": "poison-json", ').toString('base64'),
    });
    expect(messages[1]).toMatch(/schema id 2147483632/);
    expect(messages[2]).toMatch(/^params: .*taxId/);
    expect(errors[2]?.requestId).toBe('poison-params');
    expect(messages[3]).toMatch(/^envelope: params/);
    expect(messages[4]).toMatch(/exceeds MAX_REQUEST_BYTES/);
    expect(collector.results().some((r) => r.value.requestId === 'poison-before')).toBe(true);
  });

  it('calls the vendor once per requestId when a request is delivered twice', async () => {
    const taxId = cpfFor('happy', 300);
    const before = sandbox.counters().billed;
    await publish(kafka, topics.request('lawsuits-summary'), [
      { key: taxId, value: { requestId: 'twice', params: { taxId } } },
      { key: taxId, value: { requestId: 'twice', params: { taxId } } },
    ]);
    await collector.waitFor(
      () => collector.results().filter((r) => r.value.requestId === 'twice').length === 2,
      30_000,
      'both outcomes',
    );
    const attempts = collector
      .results()
      .filter((r) => r.value.requestId === 'twice')
      .map((r) => r.value.attempts);
    expect(attempts).toEqual([1, 0]);
    expect(sandbox.counters().billed - before).toBe(1);
  });
});
