/** What a benchmark scenario is, what it measures, and the settings every scenario shares. */
import type { CounterSnapshot } from '../src/sandbox/counters.js';
import type { RunProbe } from './measure.js';

export const BROKERS = process.env.KAFKA_BROKERS ?? '127.0.0.1:9092';
export const REGISTRY = process.env.SCHEMA_REGISTRY_URL ?? 'http://127.0.0.1:8081/apis/ccompat/v7';
export const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** BENCH_SANDBOX_PORT lets two benchmark runs share a machine (each its own sandbox). */
export const SANDBOX_PORT = Number(process.env.BENCH_SANDBOX_PORT ?? 18090);
/**
 * The service's admin port (its /metrics) in the scenarios that read it: fixed, so that it is
 * known without parsing the service's log; BENCH_ADMIN_PORT when the default is taken.
 */
export const ADMIN_PORT = Number(process.env.BENCH_ADMIN_PORT ?? SANDBOX_PORT + 1);
export const API_KEY = 'bench-key';
/**
 * The service (and the baseline, to compare like with like) runs with the Dockerfile's young
 * generation (8 MiB semi-spaces): V8's default grows to 64 MiB on this machine, and scavenging
 * it with a window of requests alive took 10-30 ms, each pause bunching the calls due during it.
 * The sandbox gets the same, because it stamps arrivals after such a pause too, and a vendor's
 * gateway does not pause to stamp them.
 */
export const SMALL_YOUNG_GENERATION = '--max-semi-space-size=8';
/**
 * glibc's malloc arenas, as the Dockerfile sets them: by default each thread (V8's platform
 * workers, libuv's pool) may get its own arena, and memory freed in one is not reused by
 * another. Two arenas took about 10 MiB off the service's peak RSS in (b) (177.3 / 185.6 against
 * 190.0-193.4 MiB, at the same CPU per request).
 */
export const MALLOC_ARENAS = '2';
export const SERVICE_NODE_OPTIONS = process.env.BENCH_SERVICE_NODE_OPTIONS ?? SMALL_YOUNG_GENERATION;
export const SANDBOX_NODE_OPTIONS = process.env.BENCH_SANDBOX_NODE_OPTIONS ?? SMALL_YOUNG_GENERATION;

/**
 * One scenario: lawsuits-summary requests through the service, then through the baseline, on
 * the same stack with the sandbox configured by `sandbox`. A new scenario is one more file in
 * bench/scenarios/ and one more entry in bench/run.ts.
 */
export interface Scenario {
  id: string;
  title: string;
  /** Partitions of every contract topic. */
  partitions: number;
  /** Partitions of lawsuits-summary's request topic, when not `partitions` (scenario (d)). */
  requestPartitions?: number;
  requests: number;
  /** SANDBOX_* knobs. */
  sandbox: Record<string, string>;
  /** Service settings beyond the stack's (config.ts names). */
  service: Record<string, string>;
  baselineConcurrency: number;
  /** The baseline, when slower, is stopped after this and measured on what it did. */
  baselineCapMs: number;
  /** How long the service may take over the requests (default 10 minutes). */
  serviceCapMs?: number;
  /** When set, the figure of merit is the achieved rate over this limit. */
  limitPerSecond?: number;
  /** Watches the service while its outcomes are counted (the service gets ADMIN_PORT for it). */
  serviceProbe?: (pid: number) => RunProbe;
  /**
   * The settings of bench/floor-consumer.ts, the least exactly-once pipeline on the same
   * clients: when set, it is measured after the baseline, and the service against it.
   */
  floor?: Record<string, string>;
  /** Further figures of the scenario, measured after the systems. */
  extra?: () => Promise<Record<string, unknown>>;
}

/**
 * The systems measured: the service as deployed (Redis, the registry); the same service in its
 * one-instance mode (REDIS_URL and SCHEMA_REGISTRY_URL unset: in-memory stores, plain JSON
 * values), what its shared state and framing cost shows against it; the plain baseline; (b)'s floor.
 */
export type SystemName = 'service' | 'one-instance' | 'baseline' | 'floor';

export interface Measured {
  system: SystemName;
  /** Cores used over the measured span by each process (system, sandbox, broker, registry, Redis, this counter). */
  coresUsed: Record<string, number>;
  outcomes: number;
  requestsWithOutcome: number;
  duplicateOutcomes: number;
  seconds: number;
  outcomesPerSecond: number;
  cpuSecondsPer1000: number;
  /**
   * CPU seconds per 1,000 requests of the system and of the stack it drives (broker, registry,
   * Redis) together: what a request costs the machine, the vendor's sandbox and the
   * benchmark's own counting left out. Only when the stack is local (its processes readable).
   */
  withStackCpuSecondsPer1000?: number;
  /**
   * Every process the requests pass through (the system, the sandbox, the stack) together:
   * the cores they kept busy over the measured span and their CPU seconds per 1,000 requests.
   * On a machine they share, throughput follows these: at the same busy cores, a system that
   * costs the machine more per request gets fewer requests through. Only with a local stack.
   */
  run?: { cores: number; cpuSecondsPer1000: number };
  peakRssMiB: number;
  vendor: Pick<CounterSnapshot, 'billed' | 'maxInOneSecond' | 'maxInAnySlidingSecond' | 'rateLimited'>;
  achievedPerLimit?: number;
  /** Seconds the backlog took to publish, before the system started. */
  publishSeconds: number;
  /** What a RunProbe saw, when the run had one. */
  probe?: Record<string, number>;
}

export function ratios(service: Measured, baseline: Measured): Record<string, number> {
  // Figures measured only with a local stack (its processes readable): the stack's CPU, the run's.
  const withLocalStack: Record<string, number> = {};
  if (service.withStackCpuSecondsPer1000 !== undefined && baseline.withStackCpuSecondsPer1000)
    withLocalStack.cpuPer1000WithStack = round(
      service.withStackCpuSecondsPer1000 / baseline.withStackCpuSecondsPer1000,
      2,
    );
  if (service.run && baseline.run?.cpuSecondsPer1000)
    withLocalStack.cpuPer1000Run = round(service.run.cpuSecondsPer1000 / baseline.run.cpuSecondsPer1000, 2);
  return {
    throughput: round(service.outcomesPerSecond / baseline.outcomesPerSecond, 2),
    cpuPer1000: round(service.cpuSecondsPer1000 / baseline.cpuSecondsPer1000, 2),
    ...withLocalStack,
    peakRss: round(service.peakRssMiB / baseline.peakRssMiB, 2),
  };
}

/**
 * The system, the sandbox and the stack together (Measured.run), from the cores each used over
 * `seconds`; the benchmark's own counting left out.
 */
export function runFigures(
  coresUsed: Readonly<Record<string, number>>,
  system: SystemName,
  seconds: number,
  requests: number,
): { cores: number; cpuSecondsPer1000: number } {
  const processes = [system, 'sandbox', ...STACK_PROCESSES];
  const cores = processes.reduce((sum, name) => sum + (coresUsed[name] ?? 0), 0);
  return {
    cores: round(cores, 3),
    cpuSecondsPer1000: cpuSecondsPer1000(coresUsed, processes, seconds, requests),
  };
}

/** The stack's processes, as bench/measure.ts names them in `coresUsed`. */
export const STACK_PROCESSES = ['kafka', 'registry', 'redis'] as const;

/**
 * CPU seconds per 1,000 requests of `processes` together, from the cores each used over
 * `seconds`, to three decimals: at two, a figure near 0.3 was off by up to 1.7%, and a ratio of
 * two such figures by up to 3.4%. A run without requests has no finite figure (null in the
 * JSON), never a free one.
 */
export function cpuSecondsPer1000(
  coresUsed: Readonly<Record<string, number>>,
  processes: readonly string[],
  seconds: number,
  requests: number,
): number {
  const cores = processes.reduce((sum, name) => sum + (coresUsed[name] ?? 0), 0);
  return round(((cores * seconds) / requests) * 1000, 3);
}

export function round(value: number, digits = 1): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * Each figure of `value` over the same figure of `reference` (64 and 256 partitions against 6,
 * a 1M backlog against 100k); figures without a finite, non-zero reference are left out.
 */
export function relativeTo(
  reference: Record<string, number>,
  value: Record<string, number>,
  digits = 2,
): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [key, base] of Object.entries(reference)) {
    const figure = value[key];
    if (figure === undefined || base === 0 || !Number.isFinite(base) || !Number.isFinite(figure)) continue;
    result[key] = round(figure / base, digits);
  }
  return result;
}

/** Every request got exactly one outcome: none missing, none twice. */
export function exactlyOnce(
  measured: Pick<Measured, 'requestsWithOutcome' | 'duplicateOutcomes'>,
  requests: number,
): boolean {
  return measured.requestsWithOutcome === requests && measured.duplicateOutcomes === 0;
}

/**
 * The scenario ids BENCH_ONLY names: a comma- or space-separated list (`d,idle`), where a word
 * of single-letter ids (`ab`, as before the longer ids) names each letter. Unset: all of them.
 */
export function chosenIds(only: string | undefined, ids: readonly string[]): Set<string> {
  if (only === undefined || only.trim() === '') return new Set(ids);
  const chosen = new Set<string>();
  for (const word of only.split(/[\s,]+/).filter((w) => w !== '')) {
    if (ids.includes(word)) chosen.add(word);
    else if (Array.from(word).every((letter) => ids.includes(letter)))
      for (const letter of word) chosen.add(letter);
    else throw new Error(`BENCH_ONLY: unknown scenario "${word}" (known: ${ids.join(', ')})`);
  }
  return chosen;
}

/**
 * The broker warm-up's size (bench/warm-up.ts), from BENCH_WARMUP_REQUESTS (20,000 requests
 * from an instant vendor) and BENCH_WARMUP_SECONDS (30 s of (c)'s load). No bulk requests
 * means no warm-up at all. Unset or blank takes the default.
 */
export function warmUpSettings(env: NodeJS.ProcessEnv): { bulkRequests: number; pacedSeconds: number } {
  const read = (name: 'BENCH_WARMUP_REQUESTS' | 'BENCH_WARMUP_SECONDS', fallback: number): number => {
    const raw = env[name]?.trim();
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name}: a whole number ≥ 0, got "${raw}"`);
    return value;
  };
  const bulkRequests = read('BENCH_WARMUP_REQUESTS', 20_000);
  const pacedSeconds = read('BENCH_WARMUP_SECONDS', 30);
  return { bulkRequests, pacedSeconds: bulkRequests === 0 ? 0 : pacedSeconds };
}
