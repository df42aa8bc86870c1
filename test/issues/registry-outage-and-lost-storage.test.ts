/**
 * Issue 14, cases 6 and 8, on a registry of this file's own (never the shared one):
 * - a framed request read while the registry is unreachable was dead-lettered as
 *   invalid_request; it must wait for the registry and be answered;
 * - after the registry lost its storage and another client registered first, a running replica
 *   kept framing with its cached ids, which then named other subjects;
 * - /readyz said ready with the registry down.
 */
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import type { Kafka } from '../../src/kafka/client.js';
import { createRegistryClient } from '../../src/producers/registry-client.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { OwnRegistry } from '../helpers/own-registry.js';
import { publish, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';
import { HUNG_MS, until } from '../helpers/wait.js';

const stack = useTestKafka();
const { kafka, onCleanup } = stack;

/** The service against a registry of this file's own (closed after the test, last). */
async function setup(name: string, persistent: boolean) {
  const registry = await OwnRegistry.start({ persistent });
  onCleanup(() => registry.close());
  const prefix = testPrefix(name);
  const { service } = await stack.service(prefix, await stack.sandbox(), {
    SCHEMA_REGISTRY_URL: registry.url,
    DEPENDENCY_CHECK_INTERVAL_MS: '300',
  });
  const readyz = async (): Promise<number> =>
    (await fetch(`http://127.0.0.1:${service.adminPort}/readyz`)).status;
  const inFlight = async (): Promise<number> => {
    const text = await (await fetch(`http://127.0.0.1:${service.adminPort}/metrics`)).text();
    return Number(/^verification_requests_in_flight (\d+)$/m.exec(text)?.[1] ?? NaN);
  };
  return { prefix, registry, readyz, inFlight };
}

/**
 * Each test starts its own registry (a JVM) twice: a minute each with both cores busy. The
 * test's timeout is a ceiling for a hung test, above its waits' own ceilings.
 */
const TEST_CEILING_MS = 600_000;

function eventually(condition: () => Promise<boolean>, what: string): Promise<boolean> {
  return until(what, condition, { intervalMs: 100 });
}

const request = (requestId: string, index: number) => {
  const taxId = cpfFor('happy', index);
  return { key: taxId, value: { requestId, params: { taxId } } };
};

describe('a schema registry outage', () => {
  it(
    'keeps a framed request until the registry answers, then answers it; /readyz says not ready meanwhile',
    async () => {
      const { prefix, registry, readyz, inFlight } = await setup('registry-outage', true);
      const topic = topicNames(prefix).request('lawsuits-summary');
      const requestSchemaId = await registry.register(`${topic}-value`, {
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
      });
      const collector = await stack.collector(prefix, registry.url);
      expect(await readyz()).toBe(200);

      await registry.stop();
      await eventually(async () => (await readyz()) === 503, '/readyz to say not ready');
      const { key, value } = request('outage-1', 800);
      const header = Buffer.alloc(5);
      header.writeUInt32BE(requestSchemaId, 1);
      await publish(kafka, topic, [
        { key, value: Buffer.concat([header, Buffer.from(JSON.stringify(value))]) },
      ]);
      // Taken and not completed: its value waits for the unreachable registry to be decoded.
      await eventually(async () => (await inFlight()) === 1, 'the request to be taken');
      expect(collector.errors()).toEqual([]);

      await registry.start();
      await collector.waitFor(() => collector.results().length === 1, HUNG_MS, 'the framed request answered');
      expect(collector.results()[0]?.value.requestId).toBe('outage-1');
      expect(collector.errors()).toEqual([]);
      await eventually(async () => (await readyz()) === 200, '/readyz to say ready again');
    },
    TEST_CEILING_MS,
  );

  it(
    'frames outputs with ids that name the service’s own subjects after the registry lost its storage',
    async () => {
      const { prefix, registry } = await setup('registry-lost', false);
      const topics = topicNames(prefix);
      const resultTopic = topics.result('lawsuits-summary');
      const raw = await rawReader(kafka, prefix, resultTopic);
      await publish(kafka, topics.request('lawsuits-summary'), [request('before-loss', 810)]);
      await eventually(() => Promise.resolve(raw.byRequest.has('before-loss')), 'the first result');

      await registry.stop();
      await registry.start();
      // Another client registers first: the ids our subjects had now name its schemas.
      for (const n of [1, 2, 3, 4, 5, 6, 7, 8])
        await registry.register(`someone-else-${n}-value`, {
          $schema: 'http://json-schema.org/draft-07/schema#',
          title: `other ${n}`,
          type: 'object',
        });
      await publish(kafka, topics.request('lawsuits-summary'), [request('after-loss', 811)]);
      await eventually(() => Promise.resolve(raw.byRequest.has('after-loss')), 'the result after the loss');

      const framed = raw.byRequest.get('after-loss') as Buffer;
      const id = framed.readUInt32BE(1);
      const named = await registry.call('GET', `/schemas/ids/${id}/versions`);
      expect(named.status).toBe(200);
      expect(named.body).toEqual(
        expect.arrayContaining([expect.objectContaining({ subject: `${resultTopic}-value` })]),
      );
      const decoded = (await createRegistryClient(registry.url).decode(framed)) as { requestId?: unknown };
      expect(decoded.requestId).toBe('after-loss');
    },
    TEST_CEILING_MS,
  );
});

/** The raw values of a topic by requestId (read from the JSON after the frame, no registry). */
async function rawReader(kafka: Kafka, prefix: string, topic: string) {
  const byRequest = new Map<string, Buffer>();
  const consumer = kafka.consumer({
    kafkaJS: { groupId: `${prefix}.raw`, fromBeginning: true, readUncommitted: false, maxWaitTimeInMs: 100 },
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic] });
  await consumer.run({
    eachMessage: ({ message }) => {
      const value = message.value ?? Buffer.alloc(0);
      const json = JSON.parse(value.subarray(value[0] === 0 ? 5 : 0).toString('utf8')) as {
        requestId?: string;
      };
      if (json.requestId !== undefined) byRequest.set(json.requestId, value);
      return Promise.resolve();
    },
  });
  onCleanup(() => consumer.disconnect());
  return { byRequest };
}
