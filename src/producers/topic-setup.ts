import kafkajs, { type Admin, type ITopicConfig } from 'kafkajs';
import { OPERATIONS, type TopicNames } from '../contract/operations.js';
import { contractTopicList, TOPICS, type RetentionClass, type TopicRow } from '../contract/topics.js';
import { retry } from '../retry.js';

/** The settings of `contractTopics`. */
export interface TopicSettings {
  partitions: number;
  replicationFactor: number;
  requestRetentionMs: number;
  outputRetentionMs: number;
  auditRetentionMs: number;
}

/**
 * The contract's topics (contract/topics.ts), created when missing, each with a finite
 * retention by its row's class (topics hold personal data, docs/data-map.md): requests for
 * REQUEST_RETENTION_MS, results, errors and events for OUTPUT_RETENTION_MS, the audit topic for
 * AUDIT_RETENTION_MS (longer). Rows with large values accept up to 2 MiB so that a result at
 * RESULT_MAX_BYTES always fits.
 */
export function contractTopics(
  topics: TopicNames,
  settings: TopicSettings,
  rows: readonly TopicRow[] = TOPICS,
): ITopicConfig[] {
  const retentionMs: Record<RetentionClass, number> = {
    request: settings.requestRetentionMs,
    output: settings.outputRetentionMs,
    audit: settings.auditRetentionMs,
  };
  // Grouped by kind (every request topic, then every result topic...): the order the created
  // topics are logged in, as it was before the table.
  const kinds = [...new Set(rows.map((row) => row.kind))];
  const ofKind = (kind: string): readonly TopicRow[] => rows.filter((row) => row.kind === kind);
  return kinds
    .flatMap((kind) => contractTopicList(OPERATIONS, ofKind(kind)))
    .map(({ row, suffix }) => ({
      topic: `${topics.prefix}.${suffix}`,
      numPartitions: settings.partitions,
      replicationFactor: settings.replicationFactor,
      configEntries: [
        { name: 'retention.ms', value: String(retentionMs[row.retention]) },
        ...(row.largeValues ? [{ name: 'max.message.bytes', value: String(LARGE_VALUE_BYTES) }] : []),
      ],
    }));
}

const LARGE_VALUE_BYTES = 2 * 1024 * 1024;

/**
 * Returns the names of the topics it created. Replicas starting together race to create the
 * same topics, and a loaded broker can answer UNKNOWN_TOPIC_OR_PARTITION while leaders are
 * elected (kafkajs does not retry it): both are retried against a fresh topic list, up to
 * `attempts` tries in all, until `signal` (shutdown) aborts.
 */
export async function ensureTopics(
  admin: Admin,
  wanted: ITopicConfig[],
  { attempts = 5, signal }: { attempts?: number; signal?: AbortSignal | undefined } = {},
): Promise<string[]> {
  return retry(
    async () => {
      const existing = new Set(await admin.listTopics());
      const missing = wanted.filter((t) => !existing.has(t.topic));
      if (missing.length > 0) await admin.createTopics({ topics: missing, waitForLeaders: true });
      return missing.map((t) => t.topic);
    },
    { maxAttempts: attempts, firstDelayMs: 250, maxDelayMs: 2_000, jitter: 'equal', signal },
  );
}

/**
 * The topics among `names` that exist and keep their messages forever (retention.ms -1, the
 * broker's default unless it was changed). Topics that existed before are never altered: their
 * retention is the cluster owner's call, so start-up only names them.
 */
// kafkajs is CommonJS, and Node's ESM loader does not find ConfigResourceTypes among its named
// exports (vitest's does): read it from the module object.
const TOPIC_RESOURCE = kafkajs.ConfigResourceTypes.TOPIC;

export async function topicsKeptForever(admin: Admin, names: readonly string[]): Promise<string[]> {
  const existing = new Set(await admin.listTopics());
  const present = names.filter((name) => existing.has(name));
  if (present.length === 0) return [];
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: present.map((name) => ({
      type: TOPIC_RESOURCE,
      name,
      configNames: ['retention.ms'],
    })),
  });
  return resources
    .filter((r) => r.configEntries.some((e) => e.configName === 'retention.ms' && Number(e.configValue) < 0))
    .map((r) => r.resourceName)
    .sort();
}
