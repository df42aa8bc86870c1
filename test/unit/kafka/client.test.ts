/**
 * The project's one door to Kafka (src/kafka/client.ts): where the client's own log lines go
 * and which of them are kept, and the librdkafka properties the lower-level consumers are made
 * with. No broker is needed: the one connection made is refused by a closed loopback port.
 */
import { Writable } from 'node:stream';
import rdkafka, { KafkaJS, type ConsumerGlobalConfig } from '@confluentinc/kafka-javascript';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KafkaSecurity } from '../../../src/config-transport.js';
import {
  createKafka,
  createPartitionConsumer,
  librdkafkaSettings,
  pinoKafkaLogger,
  recentClientErrors,
} from '../../../src/kafka/client.js';
import { freePort } from '../../helpers/free-port.js';

interface LogLine {
  level: number;
  msg: string;
  component?: string;
  [field: string]: unknown;
}

const DEBUG = 20;
const WARN = 40;
const ERROR = 50;

/** A pino logger at debug whose lines are kept, parsed. */
function capturingLogger() {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString('utf8')) as LogLine);
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

const thread = (text: string): string =>
  `[thrd:sasl_ssl://b:9094/bootstrap]: sasl_ssl://b:9094/bootstrap: ${text}`;

describe("the client's log lines, into pino", () => {
  // The client's words (librdkafka's, and its compatible layer's) for what a broker says while it
  // starts, moves a coordinator or elects leaders, and for a broker out of reach a moment.
  it.each([
    'Broker: Coordinator load in progress',
    'Broker: Coordinator not available',
    'Broker: Not coordinator',
    'Broker: Not leader for partition',
    'Broker: Leader not available',
    'Broker: Unknown topic or partition',
    'Broker: Producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing',
    'Error: Local: Broker transport failure',
    'Error: Local: All broker connections are down',
    thread('Connect to ipv4#10.0.0.7:9094 failed: Connection refused (after 0ms in state CONNECT)'),
    thread('Disconnected (after 60012ms in state UP)'),
  ])('sends a transient line to debug, as error or warning alike (%s)', (text) => {
    const { logger, lines } = capturingLogger();
    const errors: string[] = [];
    const adapter = pinoKafkaLogger(logger, errors);
    adapter.error(text, { fac: 'FAIL' });
    adapter.warn(text, { fac: 'FAIL' });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [DEBUG, text],
      [DEBUG, text],
    ]);
    // Still kept: it may be the reason a first connection failed.
    expect(errors).toEqual([text]);
  });

  it('keeps the level of any other warning or error, the message constant and the context beside it', () => {
    const { logger, lines } = capturingLogger();
    const adapter = pinoKafkaLogger(logger);
    const refused = thread(
      'SASL authentication error: Authentication failed during authentication due to invalid credentials with SASL mechanism SCRAM-SHA-512 (after 308ms in state AUTH_REQ)',
    );
    adapter.error(refused, { fac: 'FAIL', name: 'rdkafka#producer-1' });
    adapter.warn('Broker: Invalid replication factor', { fac: 'BINDING' });
    expect(lines).toEqual([
      expect.objectContaining({
        level: ERROR,
        msg: refused,
        component: 'kafka',
        fac: 'FAIL',
        name: 'rdkafka#producer-1',
      }),
      expect.objectContaining({ level: WARN, msg: 'Broker: Invalid replication factor', component: 'kafka' }),
    ]);
  });

  it("sends the client's info lines (connected, rebalanced) to debug", () => {
    const { logger, lines } = capturingLogger();
    const adapter = pinoKafkaLogger(logger);
    adapter.info('Producer connected', { fac: 'BINDING' });
    adapter.debug('Attempting to begin transaction', { fac: 'BINDING' });
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [DEBUG, 'Producer connected'],
      [DEBUG, 'Attempting to begin transaction'],
    ]);
  });

  it('keeps the last 20 error lines, never warnings or info', () => {
    const errors: string[] = [];
    const adapter = pinoKafkaLogger(capturingLogger().logger, errors);
    for (let n = 0; n < 25; n += 1) {
      adapter.error(`error ${n}`);
      adapter.warn(`warning ${n}`);
      adapter.info(`info ${n}`);
    }
    expect(errors).toEqual(Array.from({ length: 20 }, (_, k) => `error ${k + 5}`));
  });

  it('keeps error lines without a logger too, and writes nothing', () => {
    const errors: string[] = [];
    const adapter = pinoKafkaLogger(undefined, errors);
    adapter.error('Broker: Topic authorization failed');
    adapter.namespace('producer').error('Broker: Group authorization failed');
    adapter.warn('Broker: Invalid replication factor');
    expect(errors).toEqual(['Broker: Topic authorization failed', 'Broker: Group authorization failed']);
  });
});

describe('recentClientErrors', () => {
  it('has nothing for a client not made by createKafka', () => {
    const other = new KafkaJS.Kafka({ kafkaJS: { brokers: ['127.0.0.1:9092'] } });
    expect(recentClientErrors(other)).toEqual([]);
  });

  it("holds the client's own error lines of a failed connection, per client, at debug in the log", async () => {
    const port = await freePort();
    const { logger, lines } = capturingLogger();
    const kafka = createKafka({ brokers: [`127.0.0.1:${port}`], logger, connectionTimeoutMs: 1_000 });
    const untouched = createKafka({ brokers: [`127.0.0.1:${port}`] });
    const admin = kafka.admin();
    await admin.connect();
    try {
      // The request itself says only "broker transport failure".
      await expect(admin.listTopics({ timeout: 2_000 })).rejects.toThrow(/Broker transport failure/);
    } finally {
      await admin.disconnect();
    }
    const refused = recentClientErrors(kafka);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.length).toBeLessThanOrEqual(20);
    for (const line of refused) {
      expect(line).toContain(`Connect to ipv4#127.0.0.1:${port} failed: Connection refused`);
    }
    expect(recentClientErrors(untouched)).toEqual([]);
    // Refused connections are transient: the log has them at debug only.
    const logged = lines.filter((l) => l.msg.includes('Connection refused'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.map((l) => l.level)).toEqual(logged.map(() => DEBUG));
  });
});

const PASSWORD = 'sasl-password-do-not-log';
const KEY = '-----BEGIN PRIVATE KEY-----\nclient-key\n-----END PRIVATE KEY-----\n';
const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----\n';
const CERT = '-----BEGIN CERTIFICATE-----\nclient\n-----END CERTIFICATE-----\n';
const sasl = (mechanism: 'plain' | 'scram-sha-256' | 'scram-sha-512') => ({
  mechanism,
  username: 'gateway',
  password: PASSWORD,
});

describe('librdkafkaSettings', () => {
  it.each<[string, KafkaSecurity, string]>([
    ['nothing', {}, 'plaintext'],
    ['TLS with the system CAs', { ssl: true }, 'ssl'],
    ['TLS with a CA file', { ssl: { ca: CA } }, 'ssl'],
    ['SASL without TLS', { sasl: sasl('plain') }, 'sasl_plaintext'],
    ['SASL over TLS', { ssl: true, sasl: sasl('scram-sha-512') }, 'sasl_ssl'],
    [
      'SASL over TLS with PEM files',
      { ssl: { ca: CA, cert: CERT, key: KEY }, sasl: sasl('plain') },
      'sasl_ssl',
    ],
  ])('speaks the security protocol of %s', (_name, security, protocol) => {
    expect(librdkafkaSettings({ brokers: ['b:9094'], security })['security.protocol']).toBe(protocol);
  });

  it.each([
    ['plain', 'PLAIN'],
    ['scram-sha-256', 'SCRAM-SHA-256'],
    ['scram-sha-512', 'SCRAM-SHA-512'],
  ] as const)('logs in with %s as librdkafka names it', (mechanism, named) => {
    const settings = librdkafkaSettings({
      brokers: ['b:9094'],
      security: { ssl: true, sasl: sasl(mechanism) },
    });
    expect(settings).toMatchObject({
      'sasl.mechanisms': named,
      'sasl.username': 'gateway',
      'sasl.password': PASSWORD,
    });
  });

  it('gives the CA, certificate and key as PEM text, and nothing of TLS or SASL when not asked', () => {
    const pem = librdkafkaSettings({
      brokers: ['b:9094'],
      security: { ssl: { ca: CA, cert: CERT, key: KEY } },
    });
    expect(pem).toMatchObject({ 'ssl.ca.pem': CA, 'ssl.certificate.pem': CERT, 'ssl.key.pem': KEY });
    const caOnly = librdkafkaSettings({ brokers: ['b:9094'], security: { ssl: { ca: CA } } });
    expect(Object.keys(caOnly).filter((k) => k.startsWith('ssl.'))).toEqual(['ssl.ca.pem']);
    // TLS with the system's CAs: librdkafka's own defaults, no PEM.
    const system = librdkafkaSettings({ brokers: ['b:9094'], security: { ssl: true } });
    expect(Object.keys(system).filter((k) => k.startsWith('ssl.') || k.startsWith('sasl.'))).toEqual([]);
    const plain = librdkafkaSettings({ brokers: ['b:9094'] });
    expect(Object.keys(plain).filter((k) => k.startsWith('ssl.') || k.startsWith('sasl.'))).toEqual([]);
  });

  it('holds the SASL password in sasl.password alone, and the private key in ssl.key.pem alone', () => {
    const settings = librdkafkaSettings({
      brokers: ['b1:9094', 'b2:9094'],
      clientId: 'gw',
      security: { ssl: { ca: CA, cert: CERT, key: KEY }, sasl: sasl('scram-sha-512') },
    });
    const holding = (secret: string) =>
      Object.entries(settings)
        .filter(([, value]) => JSON.stringify(value).includes(JSON.stringify(secret).slice(1, -1)))
        .map(([name]) => name);
    expect(holding(PASSWORD)).toEqual(['sasl.password']);
    expect(holding('client-key')).toEqual(['ssl.key.pem']);
  });

  it('names the brokers, the client and its timeouts as librdkafka does', () => {
    expect(
      librdkafkaSettings({
        brokers: ['b1:9092', 'b2:9092'],
        clientId: 'gw.auditor',
        requestTimeoutMs: 15_000,
        connectionTimeoutMs: 3_000,
      }),
    ).toEqual({
      'bootstrap.servers': 'b1:9092,b2:9092',
      'client.id': 'gw.auditor',
      'security.protocol': 'plaintext',
      'socket.timeout.ms': 15_000,
      'socket.connection.setup.timeout.ms': 3_000,
    });
  });

  it.each<KafkaSecurity>([
    {},
    { ssl: true },
    { ssl: { ca: CA, cert: CERT, key: KEY } },
    { ssl: true, sasl: sasl('scram-sha-256') },
    { sasl: sasl('plain') },
  ])('are properties librdkafka takes (%o)', (security) => {
    // librdkafka checks each property's name and value when the client is made (no connection).
    const make = () =>
      new rdkafka.KafkaConsumer(
        { ...librdkafkaSettings({ brokers: ['b:9094'], security }), 'group.id': 'g' },
        {},
      );
    expect(make).not.toThrow();
    // The check is real: a property librdkafka does not know is refused.
    const misspelt = Object.fromEntries([
      ['bootstrap.servers', 'b:9094'],
      ['sasl.mechanism.name', 'PLAIN'],
    ]) as ConsumerGlobalConfig;
    expect(() => new rdkafka.KafkaConsumer(misspelt, {})).toThrow(/sasl\.mechanism\.name/);
  });
});

describe('createPartitionConsumer', () => {
  it('reads read_committed under the given group, commits nothing, reports partition ends, and starts at the earliest', () => {
    const consumer = createPartitionConsumer(
      { brokers: ['b:9094'], clientId: 'gw.auditor', security: { ssl: true, sasl: sasl('scram-sha-512') } },
      'gw.auditor.audit.1',
    );
    const { globalConfig, topicConfig } = consumer as unknown as {
      globalConfig: ConsumerGlobalConfig;
      topicConfig: Record<string, unknown>;
    };
    expect(globalConfig).toMatchObject({
      'bootstrap.servers': 'b:9094',
      'client.id': 'gw.auditor',
      'security.protocol': 'sasl_ssl',
      'sasl.mechanisms': 'SCRAM-SHA-512',
      'group.id': 'gw.auditor.audit.1',
      'enable.auto.commit': false,
      'enable.auto.offset.store': false,
      'isolation.level': 'read_committed',
      'enable.partition.eof': true,
    });
    expect(topicConfig).toEqual({ 'auto.offset.reset': 'earliest' });
    expect(consumer.isConnected()).toBe(false);
  });
});
