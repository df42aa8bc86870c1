/**
 * Issue 14, case 10b: a Redis killed and restarted empty forgot every paid requestId, and each
 * redelivered duplicate was paid again. Redis must persist (AOF, appendfsync everysec, as the
 * local stack runs it). A Redis of this test's own, on its own port and directory: a request is
 * answered, Redis is killed with SIGKILL and started again on the same directory, and a
 * duplicate of the request is neither billed again nor answered with anything but the stored
 * outcome.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { freePort } from '../helpers/free-port.js';
import { publish } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const { kafka, onCleanup, start } = useTestKafka();

/** redis-server with the local stack's persistence, in the foreground; resolves once it answers. */
async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--bind',
      '127.0.0.1',
      '--port',
      String(port),
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--daemonize',
      'no',
    ],
    { stdio: 'ignore' },
  );
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
  const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0 });
  probe.on('error', () => undefined);
  try {
    for (let tries = 0; ; tries += 1) {
      try {
        await probe.connect();
        await probe.ping();
        return child;
      } catch (error) {
        if (tries > 50) throw error;
        probe.disconnect();
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    probe.disconnect();
  }
}

/**
 * Resolves once Redis has no append-only data left in its own buffers: written to the file,
 * which a SIGKILL of the process (not of the machine) leaves whole. With appendfsync everysec
 * the write may wait up to two seconds behind a background fsync.
 */
async function appendedToFile(port: number): Promise<void> {
  const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
  try {
    for (let tries = 0; ; tries += 1) {
      const info = await client.info('persistence');
      if (/^aof_buffer_length:0\r?$/m.test(info) && /^aof_pending_bio_fsync:0\r?$/m.test(info)) return;
      if (tries > 100) throw new Error(`append-only data still buffered: ${info}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    client.disconnect();
  }
}

describe('Redis killed and restarted on its data', () => {
  it('keeps paid outcomes: a duplicate after the restart is not billed again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vg-redis-aof-'));
    onCleanup(() => {
      rmSync(dir, { recursive: true, force: true });
      return Promise.resolve();
    });
    const port = await freePort();
    let redis = await startRedis(port, dir);
    const fatal: unknown[] = [];
    const { prefix, sandbox, collector } = await start('redis-aof', {
      env: { REDIS_URL: `redis://127.0.0.1:${port}` },
      service: { onFatal: (error) => fatal.push(error) },
    });
    const topic = topicNames(prefix).request('lawsuits-summary');
    const request = { requestId: 'aof-1', params: { taxId: cpfFor('happy', 7_100) } };

    await publish(kafka, topic, [{ key: 'aof', value: request }]);
    await collector.waitFor(() => collector.results().length >= 1, 60_000, 'the first answer');
    expect(sandbox.counters().billed).toBe(1);
    await appendedToFile(port);
    const killed = new Promise((resolve) => redis.once('exit', resolve));
    redis.kill('SIGKILL');
    await killed;
    redis = await startRedis(port, dir);

    await publish(kafka, topic, [{ key: 'aof', value: request }]);
    await collector.waitFor(() => collector.results().length >= 2, 60_000, 'the duplicate answer');
    const [first, again] = collector.results();
    expect(sandbox.counters().billed).toBe(1);
    expect(again?.value).toMatchObject({ requestId: 'aof-1', attempts: 0 });
    expect(again?.value.vendor).toEqual(first?.value.vendor);
    expect(collector.errors()).toEqual([]);
    expect(fatal).toEqual([]);
  }, 300_000);
});
