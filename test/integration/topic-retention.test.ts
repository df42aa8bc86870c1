/**
 * Issue 39, retention by default: every topic the service creates has a finite retention by
 * kind (audit longer than results), and a topic that existed before is left as it was, with a
 * warning naming it when it keeps its messages forever. On the real broker.
 */
import { Writable } from 'node:stream';
import { ConfigResourceTypes } from 'kafkajs';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { topicNames } from '../../src/contract/operations.js';
import { startService } from '../../src/main.js';
import { serviceEnv, testPrefix } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const DAY_MS = 24 * 3600 * 1000;

describe('topic retention', () => {
  it('creates each topic with a finite retention by kind, leaves an existing one alone and warns that it keeps everything', async () => {
    const prefix = testPrefix('retention');
    const topics = topicNames(prefix);
    const admin = await stack.admin();
    // Last (registered first): the topics go once the service has stopped.
    stack.onCleanup(async () => {
      const mine = (await admin.listTopics()).filter((name) => name.startsWith(`${prefix}.`));
      await admin.deleteTopics({ topics: mine }).catch(() => undefined);
    });
    // An errors topic made before, by hand, with the broker's "forever".
    await admin.createTopics({
      topics: [
        { topic: topics.errors, numPartitions: 1, configEntries: [{ name: 'retention.ms', value: '-1' }] },
      ],
      waitForLeaders: true,
    });
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString('utf8')) as Record<string, unknown>);
        done();
      },
    });
    const sandbox = await stack.sandbox();
    const config = loadConfig(serviceEnv(prefix, sandbox, { LOG_LEVEL: 'info' }));
    const service = await startService(config, pino({ level: 'info' }, sink));
    stack.onCleanup(() => service.stop());

    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [
        topics.request('vehicle'),
        topics.result('vehicle'),
        topics.vehicleSearchEvents,
        topics.audit,
        topics.errors,
      ].map((name) => ({ type: ConfigResourceTypes.TOPIC, name, configNames: ['retention.ms'] })),
    });
    const retention = Object.fromEntries(
      resources.map((r) => [
        r.resourceName,
        r.configEntries.find((e) => e.configName === 'retention.ms')?.configValue,
      ]),
    );
    expect(retention).toEqual({
      [topics.request('vehicle')]: String(7 * DAY_MS),
      [topics.result('vehicle')]: String(30 * DAY_MS),
      [topics.vehicleSearchEvents]: String(30 * DAY_MS),
      [topics.audit]: String(400 * DAY_MS),
      // Left as it was: the cluster owner's call.
      [topics.errors]: '-1',
    });
    const warnings = lines.filter((l) => l.level === 40 && String(l.msg).startsWith('existing topics keep'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.topics).toEqual([topics.errors]);
  });
});
