import { describe, expect, it } from 'vitest';
import { PauseControl, type PauseTarget } from '../../../src/consumers/pause-control.js';

type Call = [action: 'pause' | 'resume', topic: string, partition: number];

/** A consumer that records its calls, or throws as kafkajs does between a crash and its restart. */
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

const betweenRuns = new Error('Consumer group was not initialized, consumer#run must be called first');

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

  it('keeps its reasons while the consumer is between runs, without throwing', () => {
    const target = consumer();
    const pauses = new PauseControl(target);
    pauses.pause('t', 1, 'window');
    target.failWith = betweenRuns;
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
    // Running again: calls reach the consumer as before.
    target.failWith = undefined;
    pauses.pause('t', 1, 'spend-cap');
    expect(target.calls).toEqual([
      ['pause', 't', 1],
      ['pause', 't', 1],
    ]);
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
