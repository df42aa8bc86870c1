import type { Admin } from 'kafkajs';

/**
 * Creates topics and waits until they answer ListOffsets. Not createTopics' waitForLeaders: on
 * a busy broker kafkajs' wait gives up on UNKNOWN_TOPIC_OR_PARTITION instead of retrying it.
 */
export async function createTopicsReady(
  admin: Admin,
  topics: string[],
  partitions: (topic: string) => number = () => 1,
): Promise<void> {
  await admin.createTopics({
    topics: topics.map((topic) => ({ topic, numPartitions: partitions(topic), replicationFactor: 1 })),
    waitForLeaders: false,
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
