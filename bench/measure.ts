/**
 * Measuring one system (the service, the baseline or (b)'s floor) on one scenario: fresh topics, the
 * requests published first, the sandbox and the system each in their own process, outcomes
 * counted from the first to the last with the CPU of every process over the same span.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { KafkaJS } from '@confluentinc/kafka-javascript';
import type { Admin, Kafka } from '../src/kafka/client.js';
import type { TopicNames } from '../src/contract/operations.js';
import { ROOT, cpuSeconds, peakRssMiB, startNode, stop, type Started } from './processes.js';
import { dropRun, freshTopics, publishRequests } from './requests.js';
import {
  API_KEY,
  BROKERS,
  REDIS,
  REGISTRY,
  SANDBOX_NODE_OPTIONS,
  SANDBOX_PORT,
  SERVICE_NODE_OPTIONS,
  MALLOC_ARENAS,
  cpuSecondsPer1000,
  runFigures,
  round,
  STACK_PROCESSES,
  type Measured,
  type Scenario,
  type SystemName,
} from './scenario.js';

/** The service is always measured in full (within scenario.serviceCapMs); only a far slower baseline is cut short. */
const SERVICE_CAP_MS = 600_000;

/**
 * Watches the measured process while its outcomes are counted, for figures beyond CPU and
 * memory (scenario (d): broker connections, transactions).
 */
export interface RunProbe {
  /** At the first outcome. */
  first(): Promise<void>;
  /** Every 200 ms until the last outcome. */
  tick(): void;
  /** After the last outcome, given the measured span: the probe's figures. */
  last(seconds: number): Promise<Record<string, number>>;
}

export interface RunOptions {
  /** Settings of the system beyond the scenario's. */
  extraEnv?: Record<string, string>;
  probe?: (pid: number) => RunProbe;
}

export async function measure(
  kafka: Kafka,
  admin: Admin,
  scenario: Scenario,
  system: SystemName,
  options: RunOptions = {},
): Promise<Measured> {
  const { prefix, topics } = await freshTopics(admin, scenario, system);
  let sandbox: Started | undefined;
  let target: Started | undefined;
  let counter: OutcomeCounter | undefined;
  try {
    const publishSeconds = await publishRequests(
      kafka,
      topics.request('lawsuits-summary'),
      scenario.requests,
    );
    sandbox = await startSandbox(scenario.sandbox);
    // Joined before the system starts: its first outcome opens the measured span, and none is
    // counted that was made before the span began.
    counter = await startCounter(kafka, topics);
    target = await startSystem(system, scenario, prefix, options.extraEnv ?? {});
    const pid = target.child.pid ?? 0;
    const sandboxPid = sandbox.child.pid ?? 0;
    const others = stackPids();
    const capMs = system === 'baseline' ? scenario.baselineCapMs : (scenario.serviceCapMs ?? SERVICE_CAP_MS);
    const counted = await counter.count(
      { expected: scenario.requests, capMs },
      {
        cpu: () => ({
          [system]: cpuSeconds(pid),
          sandbox: cpuSeconds(sandboxPid),
          ...Object.fromEntries(Object.entries(others).map(([name, other]) => [name, cpuSeconds(other)])),
          bench: ownCpuSeconds(),
        }),
        probe: options.probe?.(pid),
      },
    );
    const measured = figures(system, scenario, counted, peakRssMiB(pid), await vendorCounters());
    return { ...measured, publishSeconds: round(publishSeconds) };
  } finally {
    await counter?.stop();
    if (target) await stop(target);
    if (sandbox) await stop(sandbox);
    await dropRun(admin, prefix);
  }
}

/**
 * One pair per benchmark process: every service a run starts reads what another sealed.
 * BENCH_AT_REST=off runs the services with Redis values in clear (ALLOW_PLAINTEXT_REDIS), to
 * measure what sealing costs against a run with it on.
 */
const BENCH_AT_REST: Record<string, string> =
  process.env.BENCH_AT_REST === 'off'
    ? { ALLOW_PLAINTEXT_REDIS: 'true' }
    : {
        REDIS_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
        REDIS_INDEX_KEY: randomBytes(32).toString('base64'),
      };

/**
 * The settings the benchmark gives every service (and baseline) it starts, whatever the
 * scenario: the same variables in this process's environment never reach them.
 */
export function serviceEnv(partitions: number, prefix: string): Record<string, string> {
  return {
    KAFKA_BROKERS: BROKERS,
    SCHEMA_REGISTRY_URL: REGISTRY,
    REDIS_URL: REDIS,
    // Encryption at rest of what Redis holds, as production runs (a scenario may turn it off).
    ...BENCH_AT_REST,
    VENDOR_BASE_URL: `http://127.0.0.1:${SANDBOX_PORT}`,
    VENDOR_API_KEY: API_KEY,
    ALLOW_INSECURE_VENDOR: 'true',
    TOPIC_PREFIX: prefix,
    KAFKA_GROUP_ID: `${prefix}.group`,
    TOPIC_PARTITIONS: String(partitions),
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    ADMIN_HOST: '127.0.0.1',
    ADMIN_PORT: '0',
    LOG_LEVEL: 'info',
    NODE_OPTIONS: SERVICE_NODE_OPTIONS,
    MALLOC_ARENA_MAX: MALLOC_ARENAS,
  };
}

/**
 * The one-instance mode: the service without Redis and the registry (in-memory idempotency,
 * quota and pending stores; plain JSON values), nothing else changed.
 */
export const ONE_INSTANCE_ENV: Record<string, undefined> = {
  REDIS_URL: undefined,
  SCHEMA_REGISTRY_URL: undefined,
  REDIS_ENCRYPTION_KEYS: undefined,
  REDIS_INDEX_KEY: undefined,
  ALLOW_PLAINTEXT_REDIS: undefined,
};

export function startSystem(
  system: SystemName,
  scenario: Scenario,
  prefix: string,
  extraEnv: Record<string, string>,
): Promise<Started> {
  const env = { ...serviceEnv(scenario.partitions, prefix), ...scenario.service, ...extraEnv };
  if (system === 'one-instance')
    return startNode(['src/cli.ts', 'run'], { ...env, ...ONE_INSTANCE_ENV }, '"msg":"service started"');
  if (system === 'floor')
    return startNode(['bench/floor-consumer.ts'], { ...env, ...scenario.floor }, 'floor started');
  return system === 'service'
    ? startNode(['src/cli.ts', 'run'], env, '"msg":"service started"')
    : startNode(
        ['bench/baseline-consumer.ts'],
        { ...env, BASELINE_CONCURRENCY: String(scenario.baselineConcurrency) },
        'baseline started',
      );
}

interface Counted {
  outcomes: number;
  requests: number;
  seconds: number;
  cpu: Record<string, number>;
  probe?: Record<string, number>;
}

function figures(
  system: SystemName,
  scenario: Scenario,
  counted: Counted,
  rssMiB: number,
  vendor: Measured['vendor'],
): Omit<Measured, 'publishSeconds'> {
  const outcomesPerSecond = counted.requests / counted.seconds;
  return {
    system,
    outcomes: counted.outcomes,
    requestsWithOutcome: counted.requests,
    duplicateOutcomes: counted.outcomes - counted.requests,
    seconds: round(counted.seconds),
    outcomesPerSecond: round(outcomesPerSecond),
    cpuSecondsPer1000: cpuSecondsPer1000(counted.cpu, [system], counted.seconds, counted.requests),
    ...(STACK_PROCESSES.every((name) => name in counted.cpu)
      ? {
          withStackCpuSecondsPer1000: cpuSecondsPer1000(
            counted.cpu,
            [system, ...STACK_PROCESSES],
            counted.seconds,
            counted.requests,
          ),
          run: runFigures(counted.cpu, system, counted.seconds, counted.requests),
        }
      : {}),
    coresUsed: counted.cpu,
    peakRssMiB: round(rssMiB),
    vendor,
    ...(counted.probe ? { probe: counted.probe } : {}),
    ...(scenario.limitPerSecond
      ? { achievedPerLimit: round(outcomesPerSecond / scenario.limitPerSecond, 3) }
      : {}),
  };
}

export async function vendorCounters(): Promise<Measured['vendor']> {
  const response = await fetch(`http://127.0.0.1:${SANDBOX_PORT}/__sandbox/counters`);
  const counters = (await response.json()) as Measured['vendor'];
  return {
    billed: counters.billed,
    maxInOneSecond: counters.maxInOneSecond,
    maxInAnySlidingSecond: counters.maxInAnySlidingSecond,
    rateLimited: counters.rateLimited,
  };
}

/** The settings the benchmark gives every sandbox it starts, before the scenario's knobs. */
export function sandboxEnv(): Record<string, string> {
  return {
    SANDBOX_PORT: String(SANDBOX_PORT),
    SANDBOX_API_KEY: API_KEY,
    SANDBOX_LOG_LEVEL: 'info',
    NODE_OPTIONS: SANDBOX_NODE_OPTIONS,
  };
}

/** The sandbox, with the scenario's knobs, on SANDBOX_PORT. */
/**
 * The vendor's priority over ours: the sandbox stands in for a vendor on machines of its own,
 * and on 2 shared cores its event loop stamped arrivals late whenever the broker and the service
 * had the CPU, which bunched them into a busier sliding second than the service sent. Raising
 * its priority needs root (CAP_SYS_NICE); without it the sandbox runs as it did.
 */
const SANDBOX_NICE = -10;

export async function startSandbox(knobs: Record<string, string>): Promise<Started> {
  const started = await startNode(['src/cli.ts', 'sandbox'], { ...sandboxEnv(), ...knobs }, 'sandbox ready');
  try {
    setPriority(started.child.pid ?? 0, SANDBOX_NICE);
  } catch {
    // Not permitted: the figures then include the sandbox's own lag, as before.
  }
  return started;
}

/** CPU seconds of this process (user and system). */
export function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

/** Counts a run's committed outcomes; joined to its topics before the system starts. */
interface OutcomeCounter {
  count(
    target: { expected: number; capMs: number },
    sampling: { cpu: () => Record<string, number>; probe: RunProbe | undefined },
  ): Promise<Counted>;
  stop(): Promise<void>;
}

/**
 * Counts committed outcomes from the first to the last, CPU sampled over the same span. Counted
 * by distinct offset (a redelivery to this counter after its own rebalance is not an outcome)
 * and by distinct requestId (two outcomes of one request are a duplicate of the system's).
 * Started, and its group joined, before the system: the first outcome it sees is the system's
 * first, and opens the span.
 */
async function startCounter(kafka: Kafka, topics: TopicNames): Promise<OutcomeCounter> {
  let onJoin = (): void => undefined;
  const joined = new Promise<void>((resolve) => (onJoin = resolve));
  const consumer = kafka.consumer({
    kafkaJS: {
      groupId: `${topics.errors}.counter`,
      fromBeginning: true,
      readUncommitted: false,
      maxWaitTimeInMs: 100,
    },
    // A batch is what a fetch brought for the partition, not the client's default 32.
    'js.consumer.max.batch.size': -1,
    // The client has no group-join event: its rebalance callback tells when partitions come.
    rebalance_cb: (error: { code: number }) => {
      if (error.code === KafkaJS.ErrorCodes.ERR__ASSIGN_PARTITIONS) onJoin();
    },
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topics.result('lawsuits-summary'), topics.errors] });
  const offsets = new Set<string>();
  const requestIds = new Set<string>();
  const span = { first: 0, last: 0, cpuAtFirst: undefined as Record<string, number> | undefined };
  // Set by count(), once the system is up; an outcome before that opens the span all the same.
  let sampling: { cpu: () => Record<string, number>; probe: RunProbe | undefined } | undefined;
  await consumer.run({
    eachBatch: async ({ batch }) => {
      if (span.first === 0 && batch.messages.length > 0) {
        span.first = Date.now();
        if (sampling) {
          span.cpuAtFirst = sampling.cpu();
          await sampling.probe?.first();
        }
      }
      for (const message of batch.messages) {
        offsets.add(`${batch.topic}/${batch.partition}/${message.offset}`);
        requestIds.add(requestIdOf(message.value));
      }
      span.last = Date.now();
      await Promise.resolve();
    },
  });
  await joined;
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await consumer.disconnect();
  };
  return {
    stop,
    async count({ expected, capMs }, given) {
      sampling = given;
      const { cpu, probe } = given;
      if (span.first !== 0 && span.cpuAtFirst === undefined) {
        // The system answered while it was still saying it had started: a few ms late.
        span.cpuAtFirst = cpu();
        await probe?.first();
      }
      const deadline = Date.now() + capMs + 120_000;
      const capped = (): boolean => span.first !== 0 && Date.now() - span.first >= capMs;
      while (requestIds.size < expected && Date.now() < deadline && !capped()) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        if (span.first !== 0) probe?.tick();
      }
      const cpuAtLast = cpu();
      await stop();
      const seconds = Math.max(0.001, (span.last - span.first) / 1000);
      return {
        outcomes: offsets.size,
        requests: requestIds.size,
        seconds,
        cpu: coresUsed(span.cpuAtFirst ?? cpuAtLast, cpuAtLast, seconds),
        ...(probe ? { probe: await probe.last(seconds) } : {}),
      };
    },
  };
}

/** Cores each process used over the measured span: where the machine's cores went. */
function coresUsed(
  before: Record<string, number>,
  after: Record<string, number>,
  seconds: number,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after).map(([name, value]) => [name, round((value - (before[name] ?? 0)) / seconds, 3)]),
  );
}

/** The requestId of an outcome, framed (magic byte, schema id) or plain JSON. */
export function requestIdOf(value: Buffer | null): string {
  if (!value) return '';
  const json = value[0] === 0 ? value.subarray(5) : value;
  const start = json.indexOf('"requestId":"');
  if (start < 0) return '';
  const from = start + '"requestId":"'.length;
  return json.subarray(from, json.indexOf('"', from)).toString();
}

/**
 * The local stack's processes, from its pid files (none when the stack runs elsewhere); in
 * STACK_DIR when the stack scripts were given one.
 */
export function stackPids(): Record<string, number> {
  const pids: Record<string, number> = {};
  const runDir = join(process.env.STACK_DIR ?? join(ROOT, '.stack'), 'run');
  for (const name of STACK_PROCESSES) {
    try {
      pids[name] = Number(readFileSync(join(runDir, `${name}.pid`), 'utf8').trim());
    } catch {
      // not a local stack
    }
  }
  return pids;
}
