import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import pino from 'pino';
import { createRedisClient } from '../../src/observability/redis-client.js';
import type { Redis } from 'ioredis';
import { until } from '../helpers/wait.js';

interface Relay {
  url: string;
  /** Chunks the client has sent so far. */
  chunks(): number;
  /** Holds Redis's replies back from the client (true) or lets them, and those held, through. */
  holdReplies(hold: boolean): void;
  close(): Promise<void>;
}

/**
 * A TCP relay in front of the test Redis that counts the chunks the client's socket delivers:
 * one write from the client arrives as one chunk on loopback (far below a segment's size).
 */
async function countingRelay(redisUrl: string): Promise<Relay> {
  const target = new URL(redisUrl);
  let chunks = 0;
  let holding = false;
  const held: { client: Socket; chunk: Buffer }[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => socket.destroy());
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => {
      chunks += 1;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (holding) held.push({ client, chunk });
      else client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('relay has no port');
  return {
    url: `redis://127.0.0.1:${address.port}`,
    chunks: () => chunks,
    holdReplies: (hold) => {
      holding = hold;
      if (!hold) for (const { client, chunk } of held.splice(0)) client.write(chunk);
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

describe('the service Redis client', () => {
  let relay: Relay;
  let redis: Redis;
  const prefix = `redis-client-${randomUUID()}`;

  beforeAll(async () => {
    relay = await countingRelay(inject('redisUrl'));
    redis = createRedisClient(relay.url, pino({ level: 'silent' }));
    await redis.ping();
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
    await relay.close();
  });

  it('sends the commands made in one turn of the event loop in one write, in order', async () => {
    const before = relay.chunks();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => redis.incrby(`${prefix}:turn`, i + 1)),
    );
    expect(relay.chunks() - before).toBe(1);
    // Each reply is its own command's, in the order sent: 1, 1+2, 1+2+3, ...
    expect(replies).toEqual(Array.from({ length: 20 }, (_, i) => ((i + 1) * (i + 2)) / 2));
  });

  it('sends the commands of separate turns in separate writes, without waiting for replies', async () => {
    const before = relay.chunks();
    relay.holdReplies(true);
    let first: Promise<string>;
    let second: Promise<string>;
    try {
      first = redis.set(`${prefix}:a`, '1');
      await new Promise<void>((resolve) => setImmediate(resolve));
      // The first command's reply is held back: the next turn's command goes out all the same
      // (auto-pipelining held it until the first pipeline had its replies).
      second = redis.set(`${prefix}:b`, '2');
      await until('the second command written', () => relay.chunks() - before === 2, {
        intervalMs: 5,
        // Far above a loopback write's time on a loaded machine; the held reply never comes.
        timeoutMs: 30_000,
        seen: () => `${relay.chunks() - before} writes`,
      });
    } finally {
      relay.holdReplies(false);
    }
    expect(await Promise.all([first, second])).toEqual(['OK', 'OK']);
    expect(await redis.mget(`${prefix}:a`, `${prefix}:b`)).toEqual(['1', '2']);
  });

  it('keeps a pipeline and a transaction whole, and their replies apart from the turn around them', async () => {
    const before = relay.chunks();
    const lone = redis.incr(`${prefix}:n`);
    const multi = redis.multi().incr(`${prefix}:n`).incr(`${prefix}:n`).exec();
    const after = redis.incr(`${prefix}:n`);
    expect(await lone).toBe(1);
    expect(await multi).toEqual([
      [null, 2],
      [null, 3],
    ]);
    expect(await after).toBe(4);
    expect(relay.chunks() - before).toBeLessThanOrEqual(2);
  });
});
