import { describe, expect, it } from 'vitest';
import { selectTopics } from '../../../src/audit/topics.js';
import { trailComparator } from '../../../src/audit/trail.js';
import { topicNames } from '../../../src/contract/operations.js';
import { record } from './helpers.js';

const topics = topicNames('p');
const existing = new Set([
  'p.requests.vehicle',
  'p.results.vehicle',
  'p.errors',
  'p.events.vehicle-search',
  'x',
]);

describe('topic selection', () => {
  it('names, kinds and kind + operation resolve to existing topics', () => {
    expect(selectTopics(topics, { names: ['x'] }, existing)).toEqual(['x']);
    expect(selectTopics(topics, { kinds: ['requests', 'errors'] }, existing)).toEqual([
      'p.requests.vehicle',
      'p.errors',
    ]);
    expect(selectTopics(topics, { kinds: ['results'], operations: ['vehicle'] }, existing)).toEqual([
      'p.results.vehicle',
    ]);
  });

  it('the requests kind reads both lanes; a named operation needs its interactive topic, not its bulk lane', () => {
    const withBulk = new Set([...existing, 'p.requests.vehicle.bulk', 'p.requests.lawsuits-summary.bulk']);
    expect(selectTopics(topics, { kinds: ['requests'] }, withBulk)).toEqual([
      'p.requests.lawsuits-summary.bulk',
      'p.requests.vehicle',
      'p.requests.vehicle.bulk',
    ]);
    expect(selectTopics(topics, { kinds: ['requests'], operations: ['vehicle'] }, withBulk)).toEqual([
      'p.requests.vehicle',
      'p.requests.vehicle.bulk',
    ]);
    // A deployment from before the lanes: the interactive topic alone.
    expect(selectTopics(topics, { kinds: ['requests'], operations: ['vehicle'] }, existing)).toEqual([
      'p.requests.vehicle',
    ]);
  });

  it('a request topic names its operation and lane; other topics name none', () => {
    expect(topics.request('vehicle', 'bulk')).toBe('p.requests.vehicle.bulk');
    expect(topics.laneOfRequestTopic('p.requests.vehicle.bulk')).toEqual({
      operation: 'vehicle',
      lane: 'bulk',
    });
    expect(topics.laneOfRequestTopic('p.requests.vehicle')).toEqual({
      operation: 'vehicle',
      lane: 'interactive',
    });
    expect(topics.operationOfRequestTopic('p.requests.vehicle-async.bulk')).toBe('vehicle-async');
    expect(topics.laneOfRequestTopic('p.requests.nope.bulk')).toBeUndefined();
    expect(topics.laneOfRequestTopic('p.results.vehicle')).toBeUndefined();
    expect(topics.requestTopics()).toHaveLength(20);
  });

  it('an unknown topic is an error naming it', () => {
    expect(() => selectTopics(topics, { names: ['nope'] }, existing)).toThrow('unknown topic: nope');
    expect(() =>
      selectTopics(topics, { kinds: ['results'], operations: ['lawsuits-summary'] }, existing),
    ).toThrow('unknown topic: p.results.lawsuits-summary');
    expect(() => selectTopics(topicNames('q'), { kinds: ['results'] }, existing)).toThrow(
      /no results topic exists/,
    );
    expect(() => selectTopics(topics, {}, existing)).toThrow(/choose what to read/);
  });

  it('the trail takes whatever exists', () => {
    const few = new Set(['p.errors']);
    expect(
      selectTopics(topics, { kinds: ['requests', 'results', 'errors', 'events'], lenient: true }, few),
    ).toEqual(['p.errors']);
  });
});

describe('trail order', () => {
  it('orders by time, then request before outcome before event, then log order', () => {
    const t = Date.parse('2026-11-21T10:00:00Z');
    const records = [
      record({ topic: 'p.events.vehicle-search', timestamp: t, offset: '1' }),
      record({ topic: 'p.results.vehicle-async', timestamp: t }),
      record({ topic: 'p.events.vehicle-search', timestamp: t, offset: '0' }),
      record({ topic: 'p.requests.vehicle-async', timestamp: t }),
      record({ topic: 'p.errors', timestamp: t - 1 }),
    ];
    const order = records.sort(trailComparator(topics)).map((r) => `${r.source.topic}@${r.source.offset}`);
    expect(order).toEqual([
      'p.errors@0',
      'p.requests.vehicle-async@0',
      'p.results.vehicle-async@0',
      'p.events.vehicle-search@0',
      'p.events.vehicle-search@1',
    ]);
  });
});
