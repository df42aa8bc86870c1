/**
 * Issue 39, retention by default: every topic the service creates has a finite retention by
 * kind (audit longer than results), and a topic that existed before is left as it was. On the
 * real broker; the retention read with Kafka's own kafka-configs tool.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { topicNames } from '../../src/contract/operations.js';
import { startService } from '../../src/main.js';
import { serviceEnv, testPrefix } from '../helpers/service.js';
import { topicConfigs } from '../helpers/kafka-tools.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const stack = useTestKafka();
const DAY_MS = 24 * 3600 * 1000;

describe('topic retention', () => {
  it('creates each topic with a finite retention by kind and leaves an existing one alone', async () => {
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

    const names = [
      topics.request('vehicle'),
      topics.result('vehicle'),
      topics.vehicleSearchEvents,
      topics.audit,
      topics.errors,
    ];
    const brokers = config.KAFKA_BROKERS.join(',');
    const retention = Object.fromEntries(
      await Promise.all(
        names.map(async (name): Promise<[string, string | undefined]> => [
          name,
          (await topicConfigs(brokers, name))['retention.ms'],
        ]),
      ),
    );
    expect(retention).toEqual({
      [topics.request('vehicle')]: String(7 * DAY_MS),
      [topics.result('vehicle')]: String(30 * DAY_MS),
      [topics.vehicleSearchEvents]: String(30 * DAY_MS),
      [topics.audit]: String(400 * DAY_MS),
      // Left as it was: the cluster owner's call.
      [topics.errors]: '-1',
    });
    // Start-up says nothing of the existing topic's retention: the client cannot read it.
    expect(lines.filter((l) => Number(l.level) >= 50)).toEqual([]);
  });
});
