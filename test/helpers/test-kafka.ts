/**
 * The set-up most integration tests share: a client of the shared broker, and the sandbox, the
 * service and an outcome collector, each closed (last opened, first closed) whatever happened:
 * what a test opens after that test, what `beforeAll` opens after the file's last test.
 */
import type { ChildProcess } from 'node:child_process';
import {
  openGroupOffsetsReader,
  type Admin,
  type GroupOffsetsReader,
  type Kafka,
} from '../../src/kafka/client.js';
import { afterAll, afterEach, beforeEach, inject } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { ServiceOptions } from '../../src/main.js';
import { contractTopics, ensureTopics } from '../../src/producers/topic-setup.js';
import { createSandbox, type KnobsPatch, type Sandbox } from '../../src/sandbox/index.js';
import { spawnService } from './service-process.js';
import { topicNames } from '../../src/contract/operations.js';
import { topicSettings } from '../../src/service/settings.js';
import {
  OutcomeCollector,
  SANDBOX_KEY,
  publish,
  serviceEnv,
  summaryRequests,
  startTestService,
  testKafka,
  testPrefix,
  type TestService,
} from './service.js';

export type Close = () => Promise<unknown>;

/** What a started service comes with: its prefix, sandbox and collector. */
export interface OnPrefix {
  prefix: string;
  sandbox: Sandbox;
  collector: OutcomeCollector;
  /** The lawsuits-summary request topic, the one most tests publish to. */
  summaryTopic: string;
  /** Publishes summaryRequests(tag, count, offset) to the summary topic. */
  publishSummaries: (tag: string, count: number, offset: number) => Promise<void>;
}

/** One service under test with its sandbox and collector, on a prefix of its own. */
export interface Started extends TestService, OnPrefix {
  /** Fetches a path of the service's admin listener (`/metrics`, `/readyz`, the console). */
  admin: (path: string, init?: RequestInit) => Promise<Response>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** What startService takes besides config (a span exporter, onFatal); in-process only. */
  service?: ServiceOptions;
  knobs?: KnobsPatch;
  /** The registry the collector decodes with (the shared one by default). */
  registryUrl?: string;
  /**
   * A request topic that takes values up to `maxBytes` (upstream may allow more than the errors
   * topic does): created so before the service starts, which then finds it (largeValueTopic).
   */
  largeValues?: LargeValues;
}

export interface LargeValues {
  topic: string;
  maxBytes: number;
}

export interface TestKafka {
  readonly kafka: Kafka;
  /** Closes `close` when the test (or, called from `beforeAll`, the file) is done. */
  onCleanup: (close: Close) => void;
  /** A connected admin client. */
  admin: () => Promise<Admin>;
  /**
   * A reader of `groupId`'s committed offsets, as the service reads its own (the admin client's
   * fetchOffsets can crash the process: src/kafka/client.ts). `stable`: read with require_stable,
   * waiting up to 2 s for a transaction that holds them, then failing with ERR__TIMED_OUT.
   */
  groupOffsets: (groupId: string, options?: { stable?: boolean }) => Promise<GroupOffsetsReader>;
  sandbox: (knobs?: KnobsPatch) => Promise<Sandbox>;
  collector: (prefix: string, registryUrl?: string) => Promise<OutcomeCollector>;
  /** The service in this process; its stop() may be called by the test too (it runs once). */
  service: (
    prefix: string,
    sandbox: Sandbox,
    env?: Record<string, string>,
    options?: ServiceOptions,
  ) => Promise<TestService>;
  /** A real service process (`cli.ts run`), killed at clean-up if it still runs. */
  spawn: (env: Record<string, string>) => Promise<ChildProcess>;
  /** A sandbox, the service against it and a collector, under `testPrefix(name)`. */
  start: (name: string, options?: StartOptions) => Promise<Started>;
  /** The same under a prefix the file chose. */
  startAt: (prefix: string, options?: StartOptions) => Promise<Started>;
  /** The same with the service as its own process; `env` starts more of them. */
  startProcess: (name: string, options?: StartOptions) => Promise<StartedProcess>;
  startProcessAt: (prefix: string, options?: StartOptions) => Promise<StartedProcess>;
}

export interface StartedProcess extends OnPrefix {
  /** The whole environment of the process, for starting more replicas. */
  env: Record<string, string>;
  child: ChildProcess;
}

/** Registers the file's clean-up hooks and returns what its tests open. */
export function useTestKafka(): TestKafka {
  const kafka = testKafka();
  const onCleanup = cleanupHooks();
  const parts = openers(kafka, onCleanup);
  const stack: TestKafka = {
    ...parts,
    start: (name, options) => stack.startAt(testPrefix(name), options),
    async startAt(prefix, options = {}) {
      onCleanup(() => deleteTopicsOf(kafka, prefix));
      const sandbox = await parts.sandbox(options.knobs);
      if (options.largeValues) {
        await largeValueTopic(kafka, serviceEnv(prefix, sandbox, options.env), options.largeValues);
      }
      const running = await parts.service(prefix, sandbox, options.env, options.service);
      const collector = await parts.collector(prefix, options.registryUrl);
      const admin = (path: string, init?: RequestInit): Promise<Response> =>
        fetch(`http://127.0.0.1:${running.service.adminPort}${path}`, init);
      return { ...running, ...onPrefix(kafka, prefix, sandbox, collector), admin };
    },
    startProcess: (name, options) => stack.startProcessAt(testPrefix(name), options),
    async startProcessAt(prefix, options = {}) {
      onCleanup(() => deleteTopicsOf(kafka, prefix));
      const sandbox = await parts.sandbox(options.knobs);
      const env = serviceEnv(prefix, sandbox, options.env);
      if (options.largeValues) await largeValueTopic(kafka, env, options.largeValues);
      const child = await parts.spawn(env);
      // After the service: it creates the topics.
      const collector = await parts.collector(prefix, options.registryUrl);
      return { ...onPrefix(kafka, prefix, sandbox, collector), env, child };
    },
  };
  return stack;
}

/**
 * Deletes the topics a service created under `prefix`, last (registered first): each service
 * creates about two dozen, and a broker that a whole run leaves with thousands of them answers
 * metadata and produce requests slowly and with transient errors. Best effort: a topic left
 * behind costs only that.
 */
async function deleteTopicsOf(kafka: Kafka, prefix: string): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const topics = (await admin.listTopics()).filter((topic) => topic.startsWith(`${prefix}.`));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 30_000 });
  } catch {
    // Left for the stack's end.
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}

/** What a test opened closes after it; what `beforeAll` opened, after the file. */
function cleanupHooks(): (close: Close) => void {
  const perFile: Close[] = [];
  let perTest: Close[] | undefined;
  const closeAll = async (closers: Close[]): Promise<void> => {
    for (const close of closers.splice(0).reverse()) await close();
  };
  beforeEach(() => {
    perTest = [];
  });
  afterEach(async () => {
    const closers = perTest ?? [];
    perTest = undefined;
    await closeAll(closers);
  });
  afterAll(() => closeAll(perFile));
  return (close) => {
    (perTest ?? perFile).push(close);
  };
}

type Openers = Omit<TestKafka, 'start' | 'startAt' | 'startProcess' | 'startProcessAt'>;

/** Each part on its own, its closer registered as it opens. */
function openers(kafka: Kafka, onCleanup: (close: Close) => void): Openers {
  return {
    kafka,
    onCleanup,
    async admin() {
      const admin = kafka.admin();
      await admin.connect();
      onCleanup(() => admin.disconnect());
      return admin;
    },
    async groupOffsets(groupId, { stable = false } = {}) {
      const reader = await openGroupOffsetsReader({ brokers: inject('kafkaBrokers').split(',') }, groupId, {
        stable,
        timeoutMs: stable ? 2_000 : 10_000,
      });
      onCleanup(() => reader.close());
      return reader;
    },
    async sandbox(knobs) {
      const sandbox = await createSandbox({ apiKey: SANDBOX_KEY, ...(knobs ? { knobs } : {}) });
      onCleanup(() => sandbox.close());
      return sandbox;
    },
    async collector(prefix, registryUrl) {
      const collector = new OutcomeCollector(kafka, prefix, registryUrl);
      await collector.start();
      onCleanup(() => collector.stop());
      return collector;
    },
    async service(prefix, sandbox, env = {}, options = {}) {
      const { service, config } = await startTestService(prefix, sandbox, env, options);
      let stopping: Promise<void> | undefined;
      const stop = (): Promise<void> => (stopping ??= service.stop());
      onCleanup(stop);
      return { service: { ...service, stop }, config };
    },
    spawn: (env) => spawnService(env, onCleanup),
  };
}

function onPrefix(kafka: Kafka, prefix: string, sandbox: Sandbox, collector: OutcomeCollector): OnPrefix {
  const summaryTopic = topicNames(prefix).request('lawsuits-summary');
  const publishSummaries = (tag: string, count: number, offset: number): Promise<void> =>
    publish(kafka, summaryTopic, summaryRequests(tag, count, offset));
  return { prefix, sandbox, collector, summaryTopic, publishSummaries };
}

/** Settings for retries a few milliseconds apart and a breaker that opens after `threshold` failures. */
export function quickBreakerEnv(
  attempts: number,
  threshold: number,
  cooldownMs: number,
  more: Record<string, string> = {},
): Record<string, string> {
  return {
    RETRY_MAX_ATTEMPTS: String(attempts),
    RETRY_BASE_MS: '20',
    RETRY_MAX_DELAY_MS: '50',
    BREAKER_FAILURE_THRESHOLD: String(threshold),
    BREAKER_COOLDOWN_MS: String(cooldownMs),
    ...more,
  };
}

/** Sandbox knobs: every call fails with this 5xx status. */
export const serverErrors = (status: number): KnobsPatch => ({
  errorRate: 1,
  errorKind: '5xx',
  errorStatus: status,
});

/**
 * Creates `topic` as the service with environment `env` would (partitions, retention), but taking
 * values up to `maxBytes`. The limit is part of the creation, not a change made after it: a
 * broker applies its metadata one batch at a time, and while it still creates the partitions of
 * a batch (the service's two dozen topics, another test file's), those it has created already
 * take values with the default limit, and a change acknowledged meanwhile waits its turn: a large
 * value sent then is refused (MESSAGE_TOO_LARGE).
 */
async function largeValueTopic(
  kafka: Kafka,
  env: Record<string, string>,
  { topic, maxBytes }: LargeValues,
): Promise<void> {
  const config = loadConfig(env);
  const contract = contractTopics(topicNames(config.TOPIC_PREFIX), topicSettings(config)).find(
    (t) => t.topic === topic,
  );
  if (!contract) throw new Error(`${topic} is not a topic of the service under ${config.TOPIC_PREFIX}`);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const limit = { name: 'max.message.bytes', value: String(maxBytes) };
    const entries = (contract.configEntries ?? []).filter((entry) => entry.name !== limit.name);
    await ensureTopics(admin, [{ ...contract, configEntries: [...entries, limit] }]);
  } finally {
    await admin.disconnect();
  }
}
