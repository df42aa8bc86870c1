/**
 * src/consumers/kafkajs-between-runs.ts tells kafkajs's refusal of a pause, resume or seek while
 * its consumer has no group (before run, or between a crash and the restart) by the text of
 * kafkajs's error. The text is kafkajs's, not ours: this checks it against the real consumer, so
 * that an upgrade or another client that words it differently fails here, not in a rebalance.
 */
import { Kafka, logLevel } from 'kafkajs';
import { describe, expect, it } from 'vitest';
import { isBetweenRuns } from '../../../src/consumers/kafkajs-between-runs.js';

/** A consumer that never connects: nothing here reaches a broker. */
function consumer() {
  return new Kafka({ brokers: ['127.0.0.1:1'], logLevel: logLevel.NOTHING }).consumer({ groupId: 'g' });
}

function thrown(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("kafkajs's consumer without a group (between runs)", () => {
  it('refuses pause, resume and seek with the error isBetweenRuns recognises', () => {
    const c = consumer();
    const errors = [
      thrown(() => {
        c.pause([{ topic: 't' }]);
      }),
      thrown(() => {
        c.resume([{ topic: 't' }]);
      }),
      thrown(() => {
        c.seek({ topic: 't', partition: 0, offset: '0' });
      }),
    ];
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error);
      expect(isBetweenRuns(error)).toBe(true);
    }
  });

  it('does not take its other refusals for it', () => {
    const error = thrown(() => {
      consumer().seek({ topic: 't', partition: 0, offset: '-5' });
    });
    expect(error).toBeInstanceOf(Error);
    expect(isBetweenRuns(error)).toBe(false);
  });
});
