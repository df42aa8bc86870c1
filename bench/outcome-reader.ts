/**
 * What the latency figures read from outside: a run's outcomes (its results and errors topics)
 * through a read_committed reader, so an outcome counts once its transaction committed.
 */
import type { Kafka, KafkaMessage } from '../src/kafka/client.js';
import { requestIdOf } from './measure.js';
import { round } from './scenario.js';

export interface OutcomeReader {
  /** Outcomes seen per requestId (more than 1: a duplicate). */
  seen: Map<string, number>;
  /** Outcomes seen beyond the first, over every requestId. */
  duplicates(): number;
  stop(): Promise<void>;
}

/**
 * Reads `topics` from the beginning and counts each outcome by its requestId; `onFirst` is
 * called with the first outcome of each, and this process's clock on receipt.
 */
export async function readOutcomes(
  kafka: Kafka,
  groupId: string,
  topics: string[],
  onFirst: (id: string, message: KafkaMessage, receivedAt: number) => void,
): Promise<OutcomeReader> {
  const seen = new Map<string, number>();
  const reader = kafka.consumer({
    kafkaJS: { groupId, fromBeginning: true, readUncommitted: false, maxWaitTimeInMs: 100 },
    'js.consumer.max.batch.size': -1,
  });
  await reader.connect();
  await reader.subscribe({ topics });
  await reader.run({
    eachMessage: async ({ message }) => {
      const receivedAt = Date.now();
      const id = requestIdOf(message.value);
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      if (count === 1) onFirst(id, message, receivedAt);
      await Promise.resolve();
    },
  });
  return {
    seen,
    duplicates: () => [...seen.values()].reduce((sum, n) => sum + n - 1, 0),
    stop: () => reader.disconnect(),
  };
}

export interface Percentiles {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number =>
    round(sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: round(sorted.at(-1) ?? 0) };
}
