import { describe, expect, it } from 'vitest';
import { PauseControl, type PauseTarget } from '../../../src/consumers/pause-control.js';
import { createKafka } from '../../../src/kafka/client.js';

type Call = [action: 'pause' | 'resume', topic: string, partition: number];

/** A consumer that records its calls, or throws as `failWith` says. */
function consumer(): PauseTarget & { calls: Call[]; failWith: Error | undefined } {
  const calls: Call[] = [];
  const record =
    (action: Call[0]) =>
    (topics: { topic: string; partitions: number[] }[]): void => {
      if (target.failWith) throw target.failWith;
      for (const { topic, partitions } of topics)
        for (const partition of partitions) calls.push([action, topic, partition]);
    };
  const target = {
    calls,
    failWith: undefined as Error | undefined,
    pause: record('pause'),
    resume: record('resume'),
  };
  return target;
}

/** A consumer of the client that is not connected (before its start, or stopped). */
const unconnected = () => createKafka({ brokers: ['127.0.0.1:1'] }).consumer({ kafkaJS: { groupId: 'g' } });

/** What the client's consumer throws at a pause while it is not connected. */
function notConnectedError(): Error {
  try {
    unconnected().pause([{ topic: 't', partitions: [0] }]);
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('an unconnected consumer paused without an error');
}

describe('PauseControl', () => {
  it('pauses on the first reason and resumes when the last one goes', () => {
    const target = consumer();
    const pauses = new PauseControl(target);
    pauses.pause('t', 0, 'window');
    pauses.pause('t', 0, 'breaker');
    pauses.resume('t', 0, 'window');
    expect(target.calls).toEqual([['pause', 't', 0]]);
    pauses.resume('t', 0, 'breaker');
    expect(target.calls).toEqual([
      ['pause', 't', 0],
      ['resume', 't', 0],
    ]);
  });

  it('keeps its reasons while the consumer is not connected, without throwing', () => {
    const target = consumer();
    const pauses = new PauseControl(target);
    pauses.pause('t', 1, 'window');
    target.failWith = notConnectedError();
    expect(() => {
      pauses.pause('t', 2, 'breaker');
    }).not.toThrow();
    expect(() => {
      pauses.resume('t', 1, 'window');
    }).not.toThrow();
    expect(() => {
      pauses.release('t', 2);
    }).not.toThrow();
    expect(pauses.isPausedFor('t', 1, 'window')).toBe(false);
    expect(pauses.paused()).toEqual([]);
    // Connected again: calls reach the consumer as before.
    target.failWith = undefined;
    pauses.pause('t', 1, 'spend-cap');
    expect(target.calls).toEqual([
      ['pause', 't', 1],
      ['pause', 't', 1],
    ]);
  });

  it("takes the client's own consumer, not connected, without throwing", () => {
    const pauses = new PauseControl(unconnected());
    expect(() => {
      pauses.pause('t', 0, 'shutdown');
      pauses.resume('t', 0, 'shutdown');
      pauses.pause('t', 1, 'window');
      pauses.release('t', 1);
    }).not.toThrow();
    expect(pauses.paused()).toEqual([]);
  });

  it('lets any other failure of the consumer through', () => {
    const target = consumer();
    const pauses = new PauseControl(target);
    target.failWith = new Error('Invalid topic');
    expect(() => {
      pauses.pause('t', 0, 'window');
    }).toThrow('Invalid topic');
  });
});
