/**
 * npm run bench: the service against its one-instance mode (no Redis, no registry), its
 * baseline (bench/baseline-consumer.ts), and in (b) its transactional floor
 * (bench/floor-consumer.ts), measured in the same run on the same stack, every process
 * separate (service, one-instance, baseline, floor, sandbox) so that /proc tells each one's CPU
 * and memory; then the service alone over partition counts (d), idle,
 * and over a large backlog. One file per scenario in bench/scenarios/; the measuring itself in
 * bench/measure.ts.
 *
 * Results: bench/results/runtime.json and bench/results/runtime.svg. Needs the local stack
 * (started here when the environment names none). BENCH_ONLY=a,d runs some scenarios, and
 * BENCH_A_REQUESTS, BENCH_B_REQUESTS and the like change their sizes (a small run is a quick
 * smoke test); such runs write runtime.partial.json and leave the reference results alone.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { createKafka, type Admin, type Kafka } from '../src/kafka/client.js';
import { inheritedSettings } from './inherited.js';
import { measure, stackPids } from './measure.js';
import { buildForBench, FROM_SOURCE, ROOT } from './processes.js';
import { chart, summary, type ScenarioReport } from './report.js';
import { ADMIN_PORT, BROKERS, chosenIds, ratios, round, type Scenario } from './scenario.js';
import { instantVendor } from './scenarios/a-instant-vendor.js';
import { rateLimitedVendor } from './scenarios/b-rate-limited-vendor.js';
import { addedLatency, latencyLoad } from './scenarios/c-added-latency.js';
import { measureBacklog } from './scenarios/backlog.js';
import { measurePartitionCount } from './scenarios/d-partition-count.js';
import { measureIdle } from './scenarios/idle.js';
import { measureLanes } from './scenarios/lanes.js';
import { measureLatency } from './latency.js';
import { tracingCost } from './tracing-cost.js';
import { warmUpBroker } from './warm-up.js';

/** Scenarios measured by throughput against the baseline (measure.ts); (c) is measured by latency (latency.ts). */
const SCENARIOS: Scenario[] = [instantVendor, rateLimitedVendor];
/** Scenarios of the service alone, each with its own measuring, in this order after (a), (b), (c). */
const SERVICE_ONLY: Record<string, (kafka: Kafka, admin: Admin) => Promise<object>> = {
  d: measurePartitionCount,
  idle: measureIdle,
  backlog: measureBacklog,
  lanes: measureLanes,
};
const IDS = [...SCENARIOS.map((s) => s.id), 'c', ...Object.keys(SERVICE_ONLY)];

/** Settings that make a run partial: it does not replace the reference results. */
const PARTIAL_RUN_SETTINGS = [
  'BENCH_ONLY',
  'BENCH_AT_REST',
  'BENCH_A_REQUESTS',
  'BENCH_B_REQUESTS',
  'BENCH_B_BASELINE_CAP_MS',
  'BENCH_SERVICE_NODE_OPTIONS',
  'BENCH_SANDBOX_NODE_OPTIONS',
  'BENCH_TRACING',
  'BENCH_SANDBOX_PORT',
  'BENCH_ADMIN_PORT',
  'BENCH_C_SECONDS',
  'BENCH_D_REQUESTS',
  'BENCH_D_PARTITIONS',
  'BENCH_D_ROUNDS',
  'BENCH_IDLE_SETTLE_SECONDS',
  'BENCH_IDLE_SECONDS',
  'BENCH_BACKLOG_SMALL',
  'BENCH_BACKLOG_LARGE',
  'BENCH_BACKLOG_CAP_SECONDS',
  'BENCH_BACKLOG_SYSTEM',
  'BENCH_FROM_SOURCE',
  'BENCH_WARMUP_REQUESTS',
  'BENCH_WARMUP_SECONDS',
  'BENCH_LANES_BULK',
  'BENCH_LANES_SECONDS',
];

async function main(): Promise<void> {
  if (!process.env.KAFKA_BROKERS)
    execFileSync('bash', [join(ROOT, 'stack', 'up.sh')], {
      stdio: 'inherit',
      env: { ...process.env, STACK_JVM_OPTS: FULL_JIT_JVM_OPTS, KAFKA_HEAP: BENCH_KAFKA_HEAP },
    });
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
  buildForBench();
  const kafka = createKafka({ clientId: 'bench', brokers: BROKERS.split(',') });
  const admin = kafka.admin();
  await admin.connect();
  const report: Record<string, unknown> = {
    commit,
    measuredAt: new Date().toISOString(),
    machine: machine(),
    broker: brokerJvm(),
    processes: FROM_SOURCE
      ? 'TypeScript through tsx (BENCH_FROM_SOURCE=1)'
      : 'compiled JavaScript (dist/, tsc), as the image runs it: node --enable-source-maps --max-semi-space-size=8',
  };
  if ((report.broker as { jit: string }).jit.startsWith('C1'))
    console.warn(
      'the broker runs C1 only: `npm run stack:down` first and the benchmark starts it with full JIT',
    );
  const only = chosenIds(process.env.BENCH_ONLY, IDS);
  const inherited = inheritedSettings(process.env);
  if (inherited.length > 0) {
    report.inheritedSettings = inherited;
    console.warn(
      `the service or the sandbox takes ${inherited.join(', ')} from this environment: the run is partial`,
    );
  }
  try {
    report.warmUp = (await warmUpBroker(kafka, admin)) ?? 'none (BENCH_WARMUP_REQUESTS=0)';
    for (const scenario of SCENARIOS.filter((s) => only.has(s.id))) {
      const service = await measure(
        kafka,
        admin,
        scenario,
        'service',
        scenario.serviceProbe
          ? { probe: scenario.serviceProbe, extraEnv: { ADMIN_PORT: String(ADMIN_PORT) } }
          : {},
      );
      // The same service without Redis and the registry, right after it on the same stack: what
      // the shared state and the framing cost per request (service over one-instance ratios).
      const oneInstance = await measure(
        kafka,
        admin,
        scenario,
        'one-instance',
        scenario.serviceProbe
          ? { probe: scenario.serviceProbe, extraEnv: { ADMIN_PORT: String(ADMIN_PORT) } }
          : {},
      );
      const baseline = await measure(kafka, admin, scenario, 'baseline');
      const floor = scenario.floor ? await measure(kafka, admin, scenario, 'floor') : undefined;
      const entry: ScenarioReport & Record<string, unknown> = {
        title: scenario.title,
        requests: scenario.requests,
        service,
        baseline,
        ratios: ratios(service, baseline),
        oneInstance,
        oneInstanceRatios: ratios(service, oneInstance),
        ...(floor ? { floor, floorRatios: ratios(service, floor) } : {}),
        ...(scenario.extra ? await scenario.extra() : {}),
        ...(scenario.id === 'a' && process.env.BENCH_TRACING
          ? { tracing: await tracingCost(kafka, admin, scenario, service) }
          : {}),
      };
      report[scenario.id] = entry;
      console.log(`(${scenario.id}) ${scenario.title}`, JSON.stringify(entry, null, 2));
    }
    if (only.has('c')) report.c = await latencyEntry(kafka, admin);
    for (const [id, run] of Object.entries(SERVICE_ONLY).filter(([id]) => only.has(id))) {
      report[id] = await run(kafka, admin);
      console.log(`(${id})`, JSON.stringify(report[id], null, 2));
    }
  } finally {
    await admin.disconnect();
  }
  const dir = join(ROOT, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const partial = inherited.length > 0 || PARTIAL_RUN_SETTINGS.some((v) => process.env[v]);
  const name = partial ? 'runtime.partial' : 'runtime';
  writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
  if (!partial) writeFileSync(join(dir, 'runtime.svg'), chart(report, SCENARIOS));
  // The lanes scenario's own file, committed with its commit whatever the sizes (issue 41):
  // `partial` and the sizes say which run it was; the load average, how busy the machine was.
  if (report.lanes)
    writeFileSync(
      join(dir, 'lanes.json'),
      `${JSON.stringify({ commit, measuredAt: report.measuredAt, machine: report.machine, loadAverage: loadavg(), partial, ...report.lanes }, null, 2)}\n`,
    );
  console.log(summary(report));
  console.log(`wrote bench/results/${name}.json (commit ${commit})`);
}

async function latencyEntry(kafka: Kafka, admin: Admin): Promise<Record<string, unknown>> {
  const service = await measureLatency(kafka, admin, addedLatency, 'service', latencyLoad);
  const baseline = await measureLatency(kafka, admin, addedLatency, 'baseline', latencyLoad);
  const entry = {
    title: addedLatency.title,
    requests: addedLatency.requests,
    service,
    baseline,
    ratios: {
      p50: round(service.addedMs.p50 / Math.max(1, baseline.addedMs.p50), 2),
      p99: round(service.addedMs.p99 / Math.max(1, baseline.addedMs.p99), 2),
    },
  };
  console.log(`(c) ${addedLatency.title}`, JSON.stringify(entry, null, 2));
  return entry;
}

/**
 * The benchmark's broker runs with full JIT (C1 then C2), as production would, and a 1 GiB
 * heap, where the development stack runs C1 only (-XX:TieredStopAtLevel=1) to start fast. Its
 * collector is the one Kafka's own scripts start it with (kafka-run-class.sh): G1 with a 20 ms
 * pause goal. SerialGC, used before, stopped the broker for 33-35 ms (median) at every young
 * collection, about every 4 s under (c)'s load; G1's median pause was 13-14 ms. Three pairs of
 * (c) runs taken in turns, each on a fresh stack after a warm-up: p99 39 / 57 / 51 ms and
 * worst 69 / 104 / 101 ms on SerialGC, p99 39 / 38 / 39 ms and worst 59 / 63 / 68 ms on G1.
 * A stack already running is used as it is; the results say which it was (`broker`).
 */
const FULL_JIT_JVM_OPTS =
  '-XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:-UsePerfData -Djava.awt.headless=true';
const BENCH_KAFKA_HEAP = '-Xms512m -Xmx1g';

/** The broker's JIT and heap, read from its command line (a local stack only). */
function brokerJvm(): Record<string, unknown> {
  const pid = stackPids().kafka;
  if (!pid) return { jit: 'unknown (not a local stack)' };
  try {
    const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    const c1Only = args.some((a) => a.startsWith('-XX:TieredStopAtLevel='));
    return {
      jit: c1Only ? 'C1 only (development stack flags)' : 'full (C1 and C2)',
      heap: args.filter((a) => /^-Xm[sx]/.test(a)).join(' '),
      gc: args.filter((a) => /^-XX:(\+Use\w+GC|MaxGCPauseMillis=\d+)$/.test(a)).join(' ') || 'default',
    };
  } catch {
    return { jit: 'unknown (broker process not readable)' };
  }
}

function machine(): Record<string, unknown> {
  return { cpus: Number(execFileSync('nproc').toString().trim()), node: process.version };
}

await main();
