/**
 * What the cluster scenarios need to know and do on a three-node stack: which node leads a
 * partition or coordinates a transactional id (the active controller: ChaosStack); when every
 * partition is in sync again; and the Toxiproxy in front of each node (stack/toxiproxy.sh).
 */
import type { Admin, Kafka } from '../src/kafka/client.js';

/** Partitions of __transaction_state and __consumer_offsets in the stack (stack/kafka-broker.properties). */
const TRANSACTION_STATE_PARTITIONS = 10;
const CONSUMER_OFFSETS_PARTITIONS = 10;

/** Java's String.hashCode, which Kafka hashes a transactional id with. */
export function javaHashCode(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i += 1) hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0;
  return hash;
}

/** Kafka's Utils.abs(hashCode) % partitions: the __transaction_state partition of an id. */
export function transactionStatePartition(
  transactionalId: string,
  partitions = TRANSACTION_STATE_PARTITIONS,
): number {
  const hash = javaHashCode(transactionalId);
  return (hash === -2147483648 ? 0 : Math.abs(hash)) % partitions;
}

/** The transactional id the suite gives replica N of a scenario (kept across its restarts). */
export function replicaTransactionalId(prefix: string, replica: number): string {
  return `${prefix}.service.replica-${replica}`;
}

export class ClusterView {
  constructor(private readonly kafka: Kafka) {}

  private async withAdmin<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      return await work(admin);
    } finally {
      await admin.disconnect();
    }
  }

  /** Leader of each partition of a topic. */
  async leaders(topic: string): Promise<Map<number, number>> {
    return this.withAdmin(async (admin) => {
      const [metadata] = await admin.fetchTopicMetadata({ topics: [topic] });
      return new Map((metadata?.partitions ?? []).map((p) => [p.partitionId, p.leader]));
    });
  }

  /** The node that leads the most partitions of `topic` (the busiest under an even stream). */
  async busiestLeader(topic: string): Promise<number> {
    const counts = new Map<number, number>();
    for (const leader of (await this.leaders(topic)).values())
      counts.set(leader, (counts.get(leader) ?? 0) + 1);
    return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 1;
  }

  /** The node coordinating a transactional id: the leader of its __transaction_state partition. */
  async transactionCoordinator(transactionalId: string): Promise<number> {
    const leaders = await this.leaders('__transaction_state');
    return leaders.get(transactionStatePartition(transactionalId)) ?? 1;
  }

  /** The node coordinating a consumer group: the leader of its __consumer_offsets partition. */
  async groupCoordinator(groupId: string): Promise<number> {
    const leaders = await this.leaders('__consumer_offsets');
    return leaders.get(transactionStatePartition(groupId, CONSUMER_OFFSETS_PARTITIONS)) ?? 1;
  }

  /** True once every partition of the given topics has all `replicas` in sync. */
  async inSync(topics: string[], replicas: number): Promise<boolean> {
    return this.withAdmin(async (admin) => {
      const metadata = await admin.fetchTopicMetadata({ topics });
      return metadata.every((t) => t.partitions.every((p) => p.isr.length >= replicas && p.leader >= 0));
    });
  }
}

export type ToxicDirection = 'upstream' | 'downstream';

export interface Toxic {
  name: string;
  type: 'latency' | 'timeout' | 'reset_peer' | 'bandwidth' | 'slow_close' | 'limit_data';
  stream: ToxicDirection;
  attributes: Record<string, number>;
  toxicity?: number;
}

/** Toxiproxy's HTTP API (one proxy `kafka-N` per node). */
export class Toxiproxy {
  constructor(private readonly url: string) {}

  private async call(method: string, path: string, body?: unknown): Promise<void> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok)
      throw new Error(`toxiproxy ${method} ${path}: ${response.status} ${await response.text()}`);
  }

  addToxic(nodeId: number, toxic: Toxic): Promise<void> {
    return this.call('POST', `/proxies/kafka-${nodeId}/toxics`, { toxicity: 1, ...toxic });
  }

  removeToxic(nodeId: number, name: string): Promise<void> {
    return this.call('DELETE', `/proxies/kafka-${nodeId}/toxics/${name}`);
  }

  /** Disabling a proxy closes its connections and refuses new ones; enabling lets them in. */
  setEnabled(nodeId: number, enabled: boolean): Promise<void> {
    return this.call('POST', `/proxies/kafka-${nodeId}`, { enabled });
  }

  /** Every toxic removed, every proxy enabled. */
  reset(): Promise<void> {
    return this.call('POST', '/reset');
  }
}
