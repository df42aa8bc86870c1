import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.js';
import { until } from './wait.js';

/** A test file's own redis-server (never the shared one), for tests that make it refuse writes or stop. */
export interface OwnRedis {
  url: string;
  /** A client of it that reconnects every 50 ms. */
  redis: Redis;
  stop(): void;
}

/** Starts redis-server on a free port, without persistence, and resolves once it answers. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  // Reconnects every 50 ms until redis-server listens. (Calling connect() in a loop hung when
  // the first call came before it listened: every later call threw 'already connecting'.)
  const redis = new Redis(url, { retryStrategy: () => 50 });
  redis.on('error', () => undefined); // refused until redis-server listens
  await until('redis-server', () => redis.status === 'ready');
  return {
    url,
    redis,
    stop: () => {
      redis.disconnect();
      if (server.exitCode === null) server.kill('SIGKILL');
    },
  };
}
