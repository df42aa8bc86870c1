import type { Admin } from '../../src/kafka/client.js';

/**
 * Creates topics and waits until they answer ListOffsets: the broker that answers CreateTopics
 * may list a topic's partitions (and elect their leaders) a moment later, and a test that reads
 * or writes at once would meet UNKNOWN_TOPIC_OR_PARTITION.
 */
export async function createTopicsReady(
  admin: Admin,
  topics: string[],
  partitions: (topic: string) => number = () => 1,
): Promise<void> {
  await admin.createTopics({
    topics: topics.map((topic) => ({ topic, numPartitions: partitions(topic), replicationFactor: 1 })),
  });
  const deadline = Date.now() + 30_000;
  for (const topic of topics) {
    for (;;) {
      try {
        const offsets = await admin.fetchTopicOffsets(topic);
        if (offsets.length === partitions(topic)) break;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
