/**
 * Issue 39, N2: a vehicle search created at the vendor (paid) whose pending entry could not be
 * written to Redis was tried again in place from the start: a second search was created and
 * billed for the same requestId, and the result carried the second search's id. The service's
 * Redis here is this file's own redis-server, made to refuse writes (maxmemory 1) while the
 * vendor holds the search's creation, and let go once the runtime has given up on the write.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Kafka, Producer } from '../../src/kafka/client.js';
import { topicNames } from '../../src/contract/operations.js';
import { startService, type Service } from '../../src/main.js';
import { createLogger } from '../../src/observability/logger.js';
import { redisPendingStore } from '../../src/webhooks/index.js';
import { createSandbox, plateFor, type Sandbox } from '../../src/sandbox/index.js';
import { atRestEnv } from '../helpers/at-rest-keys.js';
import { readCommitted } from '../helpers/committed-reader.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';
import { idempotentProducer, kafkaClient, randomName } from '../helpers/stack.js';
import { until } from '../helpers/wait.js';

const API_KEY = 'sandbox-key';

let own: OwnRedis;
let redisUrl: string;
let redis: Redis;
let kafka: Kafka;
let producer: Producer;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  own = await startOwnRedis();
  ({ url: redisUrl, redis } = own);
  kafka = kafkaClient(inject('kafkaBrokers'));
  producer = idempotentProducer(kafka);
  await producer.connect();
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  await producer.disconnect();
  own.stop();
});

interface Result {
  requestId: string;
  status: string;
  attempts?: number;
  searchId?: string;
  response?: { id?: string };
}

function readResults(topic: string): Promise<Result[]> {
  return readCommitted(kafka, topic, cleanups, ({ body }) => body as Result);
}

describe('a failed pending-search write (issue 39, N2)', () => {
  it('retries only the write: one search created and billed for the requestId, and the result carries its id', async () => {
    const sandbox: Sandbox = await createSandbox({
      apiKey: API_KEY,
      knobs: { latencyMeanMs: 1_500, latencyJitterMs: 0 },
    });
    cleanups.push(() => sandbox.close());
    const lines = new PassThrough();
    let log = '';
    lines.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const logger = createLogger({ level: 'warn', destination: lines });
    const prefix = randomName('n2');
    const config = loadConfig({
      KAFKA_BROKERS: inject('kafkaBrokers'),
      SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
      REDIS_URL: redisUrl,
      ...atRestEnv(),
      TOPIC_PREFIX: prefix,
      TOPIC_PARTITIONS: '1',
      KAFKA_GROUP_ID: randomName('n2-group'),
      VENDOR_BASE_URL: sandbox.url,
      ALLOW_INSECURE_VENDOR: 'true',
      VENDOR_API_KEY: API_KEY,
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '0',
      ADMIN_HOST: '127.0.0.1',
      ADMIN_PORT: '0',
      COMMIT_INTERVAL_MS: '50',
      SHUTDOWN_TIMEOUT_MS: '5000',
      VEHICLE_SEARCH_POLL_MS: '60000',
    });
    const service: Service = await startService(config, logger);
    cleanups.push(() => service.stop());
    const results = await readResults(topicNames(prefix).result('vehicle-async'));

    const requestId = `n2-${randomUUID()}`;
    await producer.send({
      topic: topicNames(prefix).request('vehicle-async'),
      messages: [
        {
          key: 'plate',
          value: JSON.stringify({
            requestId,
            params: { licensePlate: plateFor('async-sucessful', 39) },
            metadata: { customer: 'Joana Pereira' },
          }),
        },
      ],
    });
    // The request reached the vendor: from now on, Redis refuses every write.
    await until('the search creation at the vendor', () => sandbox.counters().total >= 1);
    await redis.config('SET', 'maxmemory', '1');
    // The pending write failed its quick tries, and the runtime gave the message back.
    await until('an in-place retry', () => log.includes('processing failed on infrastructure; retrying'));
    await redis.config('SET', 'maxmemory', '0');

    await until('the result', () => results.some((r) => r.requestId === requestId));
    const counters = sandbox.counters();
    expect(counters.byOperation['vehicle-async']).toBe(1);
    expect(Object.values(counters.byFingerprint)).toEqual([1]);
    const mine = results.filter((r) => r.requestId === requestId);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.status).toBe('accepted');
    // The pending entry names the same search as the result.
    expect(mine[0]?.searchId).toBeDefined();
    // Read as the service stores it: sealed with its keys.
    const pending = await redisPendingStore(
      redis,
      `${prefix}:vehicle-search`,
      config.atRest && { atRest: config.atRest, indexTtlMs: 60_000 },
    ).get(requestId);
    expect(pending?.searchId).toBe(mine[0]?.searchId);
    // Nothing personal in the log the failure wrote.
    expect(log).not.toContain('Joana');
  });
});
