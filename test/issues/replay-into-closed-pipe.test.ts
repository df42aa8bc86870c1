/**
 * `replay … | head` printed `replay: write EPIPE` and exited 1: a reader that stops early is
 * not a failure. The command runs as a user runs it, a real process piped into `head`.
 */
import { execFile } from 'node:child_process';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createTopicsReady } from '../helpers/create-topics.js';
import { publish, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const prefix = testPrefix('epipe');
const topic = `${prefix}.results.vehicle`;
const stack = useTestKafka();
const { kafka } = stack;
const from = new Date(Date.now() - 60_000).toISOString();

beforeAll(async () => {
  const admin = await stack.admin();
  // replay writes its audit event to <prefix>.audit before it reads (fail closed): the topic
  // the service would have created.
  const audit = `${prefix}.audit`;
  stack.onCleanup(() => admin.deleteTopics({ topics: [topic, audit] }).catch(() => undefined));
  await createTopicsReady(admin, [topic, audit]);
  // Far more than a pipe's 64 KiB buffer, so that replay still writes after head has gone.
  const padding = 'x'.repeat(200);
  await publish(
    kafka,
    topic,
    Array.from({ length: 2000 }, (_, i) => ({ key: `k${i}`, value: { requestId: `r${i}`, padding } })),
  );
});

describe('replay into a pipe whose reader stops early', () => {
  it('exits 0 without an error line', async () => {
    const command = `set -o pipefail; node_modules/.bin/tsx src/cli.ts replay --topic ${topic} --from ${from} | head -n 1`;
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'bash',
        ['-c', command],
        {
          env: {
            ...process.env,
            KAFKA_BROKERS: inject('kafkaBrokers'),
            SCHEMA_REGISTRY_URL: '',
            TOPIC_PREFIX: prefix,
          },
          timeout: 60_000,
        },
        (error, stdout, stderr) => {
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
        },
      );
    });
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ topic, offset: '0' });
    expect(result.stderr).not.toMatch(/EPIPE|replay:/);
    expect(result.code).toBe(0);
  });
});
