import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  BROKER_SETTINGS_FILE,
  brokerSettingsEnvironment,
  kafkaContainerEnvironment,
} from '../helpers/kafka-container.js';

// Every Kafka of the project runs with the settings of stack/kafka-broker.properties: stack/up.sh
// appends them to its nodes' server.properties, and the containers (the tests' testcontainers
// broker, compose.yaml's kafka service) get them as the apache/kafka image's KAFKA_* variables
// from stack/kafka-broker-env.sh. Issue 51: the tests' container had been given a hand-copied
// subset (no thread counts, retention or topic defaults), and compose.yaml a smaller one.
const ROOT = join(import.meta.dirname, '..', '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const scratch = mkdtempSync(join(tmpdir(), 'broker-settings-'));
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
});

/** The key=value lines of a properties text, in order; comments and blank lines left out. */
function properties(text: string): Map<string, string> {
  const settings = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (/^\s*([#!]|$)/.test(line)) continue;
    const equals = line.indexOf('=');
    settings.set(line.slice(0, equals), line.slice(equals + 1));
  }
  return settings;
}

/**
 * The image's reading of a variable (its /etc/kafka/docker/run, scripts/images.sh's stand-in):
 * KAFKA_FOO_BAR is foo.bar, `__` stands for `_` and `___` for `-`.
 */
function imageKey(name: string): string {
  return name
    .slice('KAFKA_'.length)
    .replace(/___/g, '-')
    .replace(/__/g, '\0')
    .replace(/_/g, '.')
    .replace(/\0/g, '_')
    .toLowerCase();
}

/** The server properties the image writes from an environment (KAFKA_*, its JVM options aside). */
function imageProperties(env: Record<string, string>): Map<string, string> {
  const jvm = ['KAFKA_HEAP_OPTS', 'KAFKA_JVM_PERFORMANCE_OPTS', 'KAFKA_OPTS', 'KAFKA_LOG4J_OPTS'];
  return new Map(
    Object.entries(env)
      .filter(([name]) => name.startsWith('KAFKA_') && !jvm.includes(name))
      .map(([name, value]) => [imageKey(name), value]),
  );
}

const shared = properties(readFileSync(BROKER_SETTINGS_FILE, 'utf8'));

describe('stack/kafka-broker.properties', () => {
  it("holds broker settings, none of them a listener, port, node id or storage (each path's own)", () => {
    expect(shared.size).toBeGreaterThan(10);
    const own = /listener|^advertised\.|^node\.id$|^broker\.id$|^process\.roles$|^controller\.|^log\.dirs?$/;
    expect([...shared.keys()].filter((key) => own.test(key))).toEqual([]);
  });

  it('is read as the image reads the names of its documentation', () => {
    expect(imageKey('KAFKA_LISTENER_NAME_SECURE_SCRAM___SHA___512_SASL_JAAS_CONFIG')).toBe(
      'listener.name.secure.scram-sha-512.sasl.jaas.config',
    );
    expect(imageKey('KAFKA_NUM_RECOVERY_THREADS_PER_DATA_DIR')).toBe('num.recovery.threads.per.data.dir');
  });
});

describe('the testcontainers broker (test/global-setup.ts)', () => {
  it('gets every shared setting, named so that the image reads it back', () => {
    const server = imageProperties(kafkaContainerEnvironment('/tmp/broker-keystore.pem'));
    for (const [key, value] of shared) expect(server.get(key), key).toBe(value);
  });

  it('names a key with `_` and `-` as the image reads it back', () => {
    const file = join(scratch, 'names.properties');
    writeFileSync(file, '# a comment\n\nfoo.bar_baz-qux=a=b\n');
    expect(brokerSettingsEnvironment(file)).toEqual({ KAFKA_FOO_BAR__BAZ___QUX: 'a=b' });
  });

  it.each([
    ['a key the image would read otherwise', 'log_.dirs=x', 'cannot be named for the image'],
    ['an upper-case key', 'Num.Partitions=1', 'not key=value with a lower-case key'],
    ['a line without =', 'num.partitions 1', 'not key=value with a lower-case key'],
  ])('refuses %s, naming the line', (_what, line, message) => {
    const file = join(scratch, 'bad.properties');
    writeFileSync(file, `num.io.threads=4\n${line}\n`);
    expect(() => brokerSettingsEnvironment(file)).toThrow(`bad.properties:2: `);
    expect(() => brokerSettingsEnvironment(file)).toThrow(message);
  });
});

describe("compose.yaml's kafka service", () => {
  interface Service {
    entrypoint: string[];
    environment: Record<string, string>;
    volumes: string[];
  }
  const kafka = (parse(read('compose.yaml')) as { services: { kafka: Service } }).services.kafka;
  const mounted = (file: string) =>
    kafka.volumes.find((volume) => volume.startsWith(`./${file}:`))?.split(':')[1];

  it('starts the image through kafka-broker-env.sh on the mounted shared file', () => {
    expect(kafka.entrypoint).toEqual([
      'bash',
      mounted('stack/kafka-broker-env.sh'),
      mounted('stack/kafka-broker.properties'),
      '/etc/kafka/docker/run',
    ]);
  });

  it('sets none of the shared settings itself (a variable it set would win)', () => {
    const own = [...imageProperties(kafka.environment).keys()];
    expect(own.filter((key) => shared.has(key))).toEqual([]);
  });

  it('runs the image with the shared settings exported, and its own variables as they are', () => {
    const out = execFileSync('bash', [join(ROOT, 'stack/kafka-broker-env.sh'), BROKER_SETTINGS_FILE, 'env'], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, KAFKA_NODE_ID: '1' },
    });
    const env = Object.fromEntries(
      out
        .split('\n')
        .filter((line) => line.startsWith('KAFKA_'))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    expect(imageProperties(env)).toEqual(new Map([...shared, ['node.id', '1']]));
  });
});

describe('stack/up.sh', () => {
  const nodeSettings = (replicationFactor: number, minIsr: number) =>
    properties(
      execFileSync(
        'bash',
        [
          '-c',
          'source stack/lib.sh && kafka_broker_settings "$1" "$2"',
          '_',
          `${replicationFactor}`,
          `${minIsr}`,
        ],
        { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, STACK_BROKERS: '1' } },
      ),
    );

  it('gives a single node the shared settings as they are', () => {
    expect(nodeSettings(1, 1)).toEqual(shared);
  });

  it("gives a three-node cluster's nodes replication factor 3 and min ISR 2, the rest as they are", () => {
    const cluster = nodeSettings(3, 2);
    expect([...cluster.keys()]).toEqual([...shared.keys()]);
    const changed = [...cluster].filter(([key, value]) => shared.get(key) !== value);
    expect(changed).toEqual([
      ['offsets.topic.replication.factor', '3'],
      ['transaction.state.log.replication.factor', '3'],
      ['transaction.state.log.min.isr', '2'],
      ['share.coordinator.state.topic.replication.factor', '3'],
      ['share.coordinator.state.topic.min.isr', '2'],
      ['default.replication.factor', '3'],
      ['min.insync.replicas', '2'],
    ]);
  });

  it('writes its nodes the shared settings and none of them itself', () => {
    const up = read('stack/up.sh');
    const config = up.slice(
      up.indexOf('write_kafka_config() {'),
      up.indexOf('\n}\n', up.indexOf('write_kafka_config() {')),
    );
    expect(config).toContain('$(kafka_broker_settings "$rf" "$isr")');
    const own = [...config.matchAll(/^([a-z0-9._-]+)=/gm)].map((m) => m[1]!);
    expect(own.length).toBeGreaterThan(5);
    expect(own.filter((key) => shared.has(key))).toEqual([]);
  });
});
