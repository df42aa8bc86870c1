/**
 * Transport security on the real broker: its SASL_SSL listener (TLS with the stack's generated
 * CA, SCRAM users; stack/README.md). The service answers a request end to end through it, the
 * audit replay reads the answer back with the same settings, and wrong settings fail at once
 * with one line naming the setting, never quoting the secret.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import type { Kafka } from '../../src/kafka/client.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerAuditCommands } from '../../src/audit/commands.js';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor, createSandbox, type Sandbox } from '../../src/sandbox/index.js';
import {
  OutcomeCollector,
  SANDBOX_KEY,
  publish,
  serviceEnv,
  startTestService,
  testPrefix,
  type TestService,
} from '../helpers/service.js';
import { secureListener, type SecureKafkaListener } from '../helpers/secure-listener.js';
import { kafkaClient } from '../helpers/stack.js';

const ROOT = join(import.meta.dirname, '..', '..');
const prefix = testPrefix('secured');
const topics = topicNames(prefix);
const requestId = `${prefix}-1`;

let secure: SecureKafkaListener;
let sandbox: Sandbox;
let secureKafka: Kafka;
let service: TestService | undefined;

/** The settings of a client of the secured listener; the password comes from its file. */
function secureSettings(): Record<string, string> {
  return {
    KAFKA_BROKERS: secure.brokers,
    KAFKA_SSL: 'true',
    KAFKA_SSL_CA_FILE: secure.caFile,
    KAFKA_SASL_MECHANISM: 'scram-sha-512',
    KAFKA_SASL_USERNAME: secure.username,
    KAFKA_SASL_PASSWORD_FILE: secure.passwordFile,
  };
}

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `cli.ts` as a real process, with only the given settings (not the test's environment). */
function cli(args: string[], settings: Record<string, string>): Promise<Exit> {
  const node = join(ROOT, 'node_modules', '.bin', 'node');
  return new Promise((resolve) => {
    execFile(
      node,
      ['--import', 'tsx', 'src/cli.ts', ...args],
      {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...settings },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** An audit command in this process (no process start to pay), with its own io and settings. */
async function audit(args: string[], settings: Record<string, string>): Promise<Exit> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => err.push(chunk));
  let code = 0;
  const program = new Command('test').exitOverride();
  registerAuditCommands(program, {
    stdout,
    stderr,
    env: settings,
    setExitCode: (c) => (code = c),
    onInterrupt: () => () => undefined,
  });
  await program.parseAsync(['node', 'cli', ...args]);
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}

function replaySettings(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...secureSettings(),
    SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
    TOPIC_PREFIX: prefix,
    AUDIT_CONNECT_TIMEOUT_MS: '3000',
    ...overrides,
  };
}

beforeAll(async () => {
  sandbox = await createSandbox({ apiKey: SANDBOX_KEY });
  secure = secureListener(inject('kafkaSecure'));
  secureKafka = kafkaClient(secure.brokers, {
    security: {
      ssl: { ca: readFileSync(secure.caFile, 'utf8') },
      sasl: {
        mechanism: 'scram-sha-512',
        username: secure.username,
        password: readFileSync(secure.passwordFile, 'utf8').trim(),
      },
    },
  });
});

afterAll(async () => {
  await service?.service.stop();
  await sandbox.close();
});

describe('a cluster that requires TLS and SCRAM', () => {
  it('the service answers a request through the SASL_SSL listener, its password given as a file', async () => {
    service = await startTestService(prefix, sandbox, secureSettings());
    const collector = new OutcomeCollector(secureKafka, prefix);
    await collector.start();
    try {
      const taxId = cpfFor('happy', 1);
      await publish(secureKafka, topics.request('lawsuits-summary'), [
        { key: taxId, value: { requestId, params: { taxId } } },
      ]);
      await collector.waitFor(() => collector.results().length > 0, 30_000, 'the result');
      expect(collector.results().map((r) => [r.topic, r.value.requestId, r.value.status])).toEqual([
        [topics.result('lawsuits-summary'), requestId, 'ok'],
      ]);
      expect(collector.errors()).toEqual([]);
    } finally {
      await collector.stop();
    }
  });

  it('replay reads the request and its result back with the same settings', async () => {
    const run = await cli(['replay', '--request-id', requestId], replaySettings());
    expect([run.code, run.stderr]).toEqual([
      0,
      expect.stringMatching(/^replay: 2 of 2 messages written \(0 undecodable\) from \d+ topic\(s\)\n$/),
    ]);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { topic: string; value: { requestId: string } });
    expect(lines.map((l) => [l.topic, l.value.requestId])).toEqual([
      [topics.request('lawsuits-summary'), requestId],
      [topics.result('lawsuits-summary'), requestId],
    ]);
  });

  it('replay logs in with SCRAM-SHA-256 as well', async () => {
    const run = await audit(
      ['replay', '--request-id', requestId],
      replaySettings({ KAFKA_SASL_MECHANISM: 'scram-sha-256' }),
    );
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split('\n')).toHaveLength(2);
  });

  it('a wrong password stops the service at start-up with one line naming the setting, not the password', async () => {
    const password = `not-the-password-${prefix}`;
    const settings = {
      ...serviceEnv(prefix, sandbox, secureSettings()),
      KAFKA_SASL_PASSWORD_FILE: '',
      KAFKA_SASL_PASSWORD: password,
      LOG_LEVEL: 'info',
    };
    const run = await cli(['run'], settings);
    expect(run.code).toBe(78);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^configuration error: KAFKA_SASL_PASSWORD: the brokers refused the SASL login/),
    ]);
    expect(run.stdout + run.stderr).not.toContain(password);
  });

  it('a plaintext client of the TLS port fails within seconds, in one line', async () => {
    const plaintext = replaySettings({ KAFKA_SSL: 'false', KAFKA_SSL_CA_FILE: '', KAFKA_SASL_MECHANISM: '' });
    const run = await audit(['replay', '--request-id', requestId], plaintext);
    expect(run.code).toBe(5);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^replay: cannot reach Kafka at ${secure.brokers}: `)),
    ]);
  });

  it('a client that does not trust the broker certificate is told to set KAFKA_SSL_CA_FILE', async () => {
    // Without a CA file the client trusts the system's CAs only, which never signed the stack's.
    const run = await audit(['replay', '--request-id', requestId], replaySettings({ KAFKA_SSL_CA_FILE: '' }));
    expect(run.code).toBe(78);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /^replay: configuration error: KAFKA_SSL_CA_FILE: the brokers' TLS certificate is not trusted/,
      ),
    ]);
  });
});
