import type { Admin, ITopicConfig } from 'kafkajs';
import { OPERATIONS, type TopicNames } from '../contract/operations.js';

/**
 * Creates the contract's topics when missing. Request topics keep what upstream sends for the
 * request retention; output topics keep their history for audits (OUTPUT_RETENTION_MS, -1 by
 * default) and accept values up to 2 MiB so that a result at RESULT_MAX_BYTES always fits.
 */
export interface TopicSettings {
  partitions: number;
  replicationFactor: number;
  requestRetentionMs: number;
  outputRetentionMs: number;
}

export function contractTopics(topics: TopicNames, settings: TopicSettings): ITopicConfig[] {
  const make = (topic: string, retentionMs: number, output: boolean): ITopicConfig => ({
    topic,
    numPartitions: settings.partitions,
    replicationFactor: settings.replicationFactor,
    configEntries: [
      { name: 'retention.ms', value: String(retentionMs) },
      ...(output ? [{ name: 'max.message.bytes', value: String(2 * 1024 * 1024) }] : []),
    ],
  });
  return [
    ...OPERATIONS.map((op) => make(topics.request(op), settings.requestRetentionMs, false)),
    ...OPERATIONS.map((op) => make(topics.result(op), settings.outputRetentionMs, true)),
    make(topics.errors, settings.outputRetentionMs, true),
    make(topics.vehicleSearchEvents, settings.outputRetentionMs, true),
    // The console's audit events (reveal, redrive): kept like the outputs, for audits.
    make(topics.audit, settings.outputRetentionMs, false),
  ];
}

/**
 * Returns the names of the topics it created. Replicas starting together race to create the
 * same topics, and a loaded broker can answer UNKNOWN_TOPIC_OR_PARTITION while leaders are
 * elected (kafkajs does not retry it): both are retried against a fresh topic list.
 */
export async function ensureTopics(admin: Admin, wanted: ITopicConfig[], attempts = 5): Promise<string[]> {
  const created: string[] = [];
  for (let attempt = 1; ; attempt += 1) {
    const existing = new Set(await admin.listTopics());
    const missing = wanted.filter((t) => !existing.has(t.topic));
    if (missing.length === 0) return created;
    try {
      await admin.createTopics({ topics: missing, waitForLeaders: true });
      return [...created, ...missing.map((t) => t.topic)];
    } catch (error) {
      if (attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
    }
  }
}
