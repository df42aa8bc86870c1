import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHeartbeat } from '../../src/console/heartbeat.js';
import { createLogger } from '../../src/observability/logger.js';
import { checkRedis, createRedisClient, redisReady } from '../../src/observability/redis-client.js';
import { freePort } from '../helpers/free-port.js';
import { until } from '../helpers/wait.js';

// This file's own redis-server (never the shared one): it is filled up and killed.
let server: ChildProcess;
let port: number;

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { logger: createLogger({ level: 'debug', destination: stream }), text: () => text };
}

beforeAll(async () => {
  port = await freePort();
  server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--maxmemory', '1'],
    { stdio: 'ignore' },
  );
  const probe = createRedisClient(`redis://127.0.0.1:${port}`, capture().logger);
  await until("this file's redis-server", () => redisReady(probe));
  probe.disconnect();
});

afterAll(() => {
  if (server.exitCode === null) server.kill('SIGKILL');
});

describe('Redis faults (issue 14, case 8)', () => {
  it('a refused write is logged without the values it tried to write', async () => {
    const { logger, text } = capture();
    const redis = createRedisClient(`redis://127.0.0.1:${port}`, logger);
    const outcome = JSON.stringify({ cpf: '52998224725', name: 'Maria da Silva' });
    const error = await redis.set('outcome:r1', outcome).catch((e: unknown) => e);
    expect(String(error)).toMatch(/OOM/);
    logger.error({ err: error }, 'cache write failed');
    await sleep(20);
    expect(text()).toContain('cache write failed');
    expect(text()).toContain('OOM');
    expect(text()).not.toContain('52998224725');
    expect(text()).not.toContain('Maria');
    redis.disconnect();
  });

  it('a refused transaction (EXECABORT) is logged without the arguments of its queued commands', async () => {
    const { logger, text } = capture();
    const redis = createRedisClient(`redis://127.0.0.1:${port}`, logger);
    const pending = JSON.stringify({ plate: 'QWE1D23', metadata: { customer: 'Joana Pereira' } });
    const error = await redis
      .multi()
      .set('pending:r1', Buffer.from(pending).toString('base64'))
      .expire('pending:r1', 60)
      .exec()
      .catch((e: unknown) => e);
    expect(String(error)).toMatch(/EXECABORT/);
    // ioredis keeps each refused command (its arguments included) under previousErrors[].command.
    expect(JSON.stringify((error as { previousErrors?: unknown }).previousErrors)).toContain('pending:r1');
    logger.error({ err: error }, 'pending write failed');
    logger.warn({ error, nested: { errors: [error] } }, 'pending write failed again');
    await sleep(20);
    expect(text()).toContain('pending write failed again');
    expect(text()).toContain('EXECABORT');
    expect(text()).not.toContain('pending:r1');
    expect(text()).not.toContain(Buffer.from(pending).toString('base64').slice(0, 16));
    expect(text()).not.toContain('Joana');
    redis.disconnect();
  });

  it("the console heartbeat's refused transaction is logged without its arguments", async () => {
    const { logger, text } = capture();
    const redis = createRedisClient(`redis://127.0.0.1:${port}`, logger);
    const failed: unknown[] = [];
    const stop = startHeartbeat(
      redis,
      'hb-leak',
      () => ({ replica: 'replica-Joana-Pereira', at: Date.now(), operations: {} }),
      (error) => {
        failed.push(error);
        logger.warn({ err: error }, 'heartbeat failed');
      },
    );
    await until('a failed heartbeat', () => failed.length > 0);
    await stop();
    await sleep(20);
    expect(text()).toContain('heartbeat failed');
    expect(text()).not.toContain('Joana');
    redis.disconnect();
  });

  it('start-up check names REDIS_URL when nothing answers', async () => {
    const redis = createRedisClient(`redis://127.0.0.1:${await freePort()}`, capture().logger);
    await expect(checkRedis(redis, 1000)).rejects.toThrow(/REDIS_URL/);
    redis.disconnect();
  });

  it('a killed Redis is logged through the error listener and turns readiness off', async () => {
    const { logger, text } = capture();
    const redis = createRedisClient(`redis://127.0.0.1:${port}`, logger);
    await checkRedis(redis);
    expect(redisReady(redis)).toBe(true);
    expect(redis.listenerCount('error')).toBeGreaterThan(0);
    server.kill('SIGKILL');
    await until('readiness off', () => !redisReady(redis));
    await until('the logged redis error', () => text().includes('redis error'));
    redis.disconnect();
  });
});
