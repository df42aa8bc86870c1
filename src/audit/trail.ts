import type { TopicNames } from '../contract/operations.js';
import type { DecodedRecord } from './records.js';
import { TOPIC_KINDS, type TopicKind } from './topics.js';

/**
 * The audit trail of one request: its messages from every kind of topic `replay` reads (the
 * table of topics, contract/topics.ts) in time order —
 * the request, each outcome (result or dead letter, several when it was redriven), the
 * vehicle-search events. Timestamps order the trail; within one millisecond the request comes
 * before its outcome and the outcome before the events, then log order breaks the tie.
 */
export const TRAIL_KINDS: readonly TopicKind[] = TOPIC_KINDS;

export function trailComparator(topics: TopicNames): (a: DecodedRecord, b: DecodedRecord) => number {
  const stage = (record: DecodedRecord): number => {
    const { topic } = record.source;
    if (topics.operationOfRequestTopic(topic) !== undefined) return 0;
    return topic === topics.vehicleSearchEvents ? 2 : 1;
  };
  return (a, b) =>
    a.source.timestamp - b.source.timestamp ||
    stage(a) - stage(b) ||
    a.source.topic.localeCompare(b.source.topic) ||
    a.source.partition - b.source.partition ||
    Number(a.source.offset) - Number(b.source.offset);
}
