import type { Admin, ITopicConfig } from '../kafka/client.js';
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
 * Returns the names of the topics it created, once the broker it asks lists them all.
 *
 * The controller answers CreateTopics once the topics are in the metadata log; the broker that
 * answers metadata requests learns of them when it applies that log, in order, and a broker
 * still creating the partitions of an earlier batch (another service's topics) lists them
 * seconds later. So each topic is asked for once and then awaited in the broker's topic list:
 * asked for again on the strength of that stale list, the controller answers
 * TOPIC_ALREADY_EXISTS.
 *
 * A creation that fails (replicas starting together race to create the same topics, a broker
 * times out) is tried again against a fresh topic list, for what is still missing, up to
 * `attempts` tries in all; the wait for the list gives up after `listedWithinMs`. `signal`
 * (shutdown) aborts either.
 */
export async function ensureTopics(
  admin: Admin,
  wanted: ITopicConfig[],
  {
    attempts = 5,
    listedWithinMs = 60_000,
    signal,
  }: { attempts?: number; listedWithinMs?: number; signal?: AbortSignal | undefined } = {},
): Promise<string[]> {
  const created = await retry(
    async () => {
      const existing = new Set(await admin.listTopics());
      const missing = wanted.filter((t) => !existing.has(t.topic));
      if (missing.length > 0) await admin.createTopics({ topics: missing });
      return missing.map((t) => t.topic);
    },
    { maxAttempts: attempts, firstDelayMs: 250, maxDelayMs: 2_000, jitter: 'equal', signal },
  );
  if (created.length > 0) await untilListed(admin, created, listedWithinMs, signal);
  return created;
}

/** Waits until the broker's topic list holds every one of `topics`. */
async function untilListed(
  admin: Admin,
  topics: readonly string[],
  withinMs: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  await retry(
    async () => {
      const listed = new Set(await admin.listTopics());
      const unlisted = topics.filter((topic) => !listed.has(topic));
      if (unlisted.length > 0) {
        throw new Error(
          `the broker does not list ${unlisted.length} of the topics just created (${unlisted.slice(0, 3).join(', ')}${unlisted.length > 3 ? ', ...' : ''})`,
        );
      }
    },
    { firstDelayMs: 50, maxDelayMs: 500, jitter: 'equal', budgetMs: withinMs, signal },
  );
}
