import { PassThrough } from 'node:stream';
import { logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { kafkaLogCreator } from '../../../src/observability/kafka-logger.js';
import { createLogger } from '../../../src/observability/logger.js';

describe('kafkaLogCreator', () => {
  it('logs transient coordinator, leader and concurrent-transaction answers at debug, other errors at error', async () => {
    const stream = new PassThrough();
    const levels: number[] = [];
    stream.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        levels.push((JSON.parse(line) as { level: number }).level);
    });
    const log = kafkaLogCreator(createLogger({ level: 'debug', destination: stream }))(logLevel.DEBUG);
    const entry = (level: logLevel, error: string) => ({
      namespace: 'Connection',
      level,
      label: 'ERROR',
      log: { timestamp: '', message: 'Response GroupCoordinator(key: 10, version: 2)', error },
    });
    log(entry(logLevel.ERROR, "The coordinator is loading and hence can't process requests for this group"));
    log(entry(logLevel.ERROR, 'The group coordinator is not available'));
    log(entry(logLevel.ERROR, 'This server is not the leader for that topic-partition'));
    log(
      entry(
        logLevel.ERROR,
        'The producer attempted to update a transaction while another concurrent operation on the same transaction was ongoing',
      ),
    );
    log(entry(logLevel.ERROR, 'Connection refused'));
    await new Promise((resolve) => setImmediate(resolve));
    expect(levels).toEqual([20, 20, 20, 20, 50]);
  });
});
