/**
 * npm run chaos: the fault suite (docs/testing.md, "Fault suite"). Its own stack on shifted ports, the
 * vendor sandbox in this process, 2-3 replicas as separate processes, a steady stream of
 * requests, and one fault per scenario. Prints a markdown table, writes the JSON report, and
 * exits 1 when a scenario lost a request or duplicated an outcome.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { DEFAULT_KAFKA_SESSION_TIMEOUT_MS } from '../src/config.js';
import { createKafka } from '../src/kafka/client.js';
import { createSandbox, type Sandbox } from '../src/sandbox/index.js';
import { Toxiproxy } from './cluster.js';
import { killLiveReplicas } from './replicas.js';
import { failures, markdownTable, warnings, type ScenarioResult } from './report.js';
import { runScenario, type RunContext, type RunSettings } from './run-scenario.js';
import { SCENARIOS, scenariosFor, type Scenario } from './scenarios.js';
import { ChaosStack, shiftedPorts } from './stack.js';

const ROOT = resolve(import.meta.dirname, '..');
const API_KEY = 'chaos-key';
/** A frozen replica stays frozen past the replicas' (default) session timeout. */
const ZOMBIE_MS = DEFAULT_KAFKA_SESSION_TIMEOUT_MS + 10_000;

const FULL: RunSettings = {
  requests: 2_000,
  ratePerSecond: 40,
  replicas: 3,
  killCycles: 20,
  downMs: 5_000,
  outageMs: 15_000,
  upstreamDuplicates: 500,
  nodeDownMs: 20_000,
  networkFaultMs: 30_000,
  zombieMs: ZOMBIE_MS,
  tailMs: 10_000,
  settleMs: 180_000,
  warmupOutcomes: 50,
};

const QUICK: RunSettings = {
  requests: 150,
  ratePerSecond: 15,
  replicas: 2,
  killCycles: 4,
  downMs: 3_000,
  outageMs: 10_000,
  upstreamDuplicates: 50,
  nodeDownMs: 10_000,
  networkFaultMs: 15_000,
  zombieMs: ZOMBIE_MS,
  tailMs: 5_000,
  settleMs: 60_000,
  warmupOutcomes: 20,
};

interface Options {
  quick?: boolean;
  only?: string[];
  requests?: number;
  rate?: number;
  killCycles?: number;
  nodeDown?: number;
  replicas?: number;
  brokers: number;
  portOffset: number;
  stackDir: string;
  keepStack?: boolean;
  out: string;
}

function positiveInt(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed <= 0)
    throw new InvalidArgumentError('must be a positive whole number');
  return parsed;
}

function scenarioList(value: string, previous: string[] | undefined): string[] {
  const names = value.split(',').map((name) => name.trim());
  const known = SCENARIOS.map((s) => s.name);
  for (const name of names)
    if (!known.includes(name))
      throw new InvalidArgumentError(`unknown scenario ${name} (${known.join(', ')})`);
  return [...(previous ?? []), ...names];
}

/**
 * A replicated cluster at production load (issue: 100 requests/s or more, 6,000 requests a
 * scenario): light load hides the faults that matter there.
 */
const CLUSTER: RunSettings = { ...FULL, requests: 6_000, ratePerSecond: 100 };

function settingsOf(options: Options): RunSettings {
  const base = options.quick === true ? QUICK : options.brokers === 3 ? CLUSTER : FULL;
  const replicas = options.replicas ?? base.replicas;
  if (replicas < 2 || replicas > 3) throw new InvalidArgumentError('--replicas must be 2 or 3');
  return {
    ...base,
    requests: options.requests ?? base.requests,
    ratePerSecond: options.rate ?? base.ratePerSecond,
    killCycles: options.killCycles ?? base.killCycles,
    nodeDownMs: options.nodeDown === undefined ? base.nodeDownMs : options.nodeDown * 1_000,
    replicas,
  };
}

async function runAll(
  scenarios: readonly Scenario[],
  settings: RunSettings,
  ctx: RunContext,
): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const [index, scenario] of scenarios.entries()) {
    console.log(`\n${scenario.name}: ${scenario.description}`);
    try {
      // A fault may leave a part down if it failed half-way: every scenario starts whole.
      await ctx.stack.up();
      if (ctx.stack.brokers > 1) await new Toxiproxy(ctx.stack.toxiproxyUrl).reset();
      results.push(await runScenario(ctx, scenario, settings, index));
    } catch (error) {
      results.push(failedResult(scenario, error));
    }
  }
  return results;
}

function failedResult(scenario: Scenario, error: unknown): ScenarioResult {
  return {
    scenario: scenario.name,
    description: scenario.description,
    requests: 0,
    messagesPublished: 0,
    lost: 0,
    duplicateOutcomes: 0,
    deadLettered: 0,
    misframed: null,
    extraBillableCalls: 0,
    kills: 0,
    unexpectedExits: 0,
    recoveryMs: null,
    drainMs: 0,
    durationMs: 0,
    lostSample: [],
    duplicateSample: [],
    error: error instanceof Error ? error.message : String(error),
  };
}

async function main(options: Options): Promise<number> {
  const settings = settingsOf(options);
  if (options.brokers !== 1 && options.brokers !== 3)
    throw new InvalidArgumentError('--brokers must be 1 or 3');
  const brokers = options.brokers;
  const scenarios = scenariosFor(brokers).filter(
    (s) => options.only === undefined || options.only.includes(s.name),
  );
  if (scenarios.length === 0)
    throw new InvalidArgumentError(`no scenario of --only runs on ${brokers} broker(s)`);
  const stack = new ChaosStack(
    ROOT,
    resolve(ROOT, options.stackDir),
    shiftedPorts(options.portOffset),
    brokers,
  );
  const runId = `${Date.now().toString(36)}${randomUUID().slice(0, 4)}`;
  const logDir = join(ROOT, 'chaos', 'results', 'logs', runId);
  mkdirSync(logDir, { recursive: true });
  let sandbox: Sandbox | undefined;
  const cleanup = async (): Promise<void> => {
    killLiveReplicas();
    await sandbox?.close();
    if (options.keepStack === true) {
      console.log(
        `stack left running for a look (KAFKA_BROKERS=${stack.kafkaBrokers}); stop it with STACK_DIR=${stack.dir} and the ports above: bash stack/down.sh`,
      );
      return;
    }
    await stack.down().catch((error: unknown) => {
      console.error(`could not stop the chaos stack: ${String(error)}`);
    });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.once(signal, () => void cleanup().finally(() => process.exit(130)));
  try {
    console.log(`chaos stack in ${stack.dir}: Kafka ${stack.kafkaBrokers}, Redis ${stack.redisUrl}`);
    await stack.down();
    await stack.up();
    sandbox = await createSandbox({ apiKey: API_KEY, knobs: { latencyMeanMs: 30, latencyJitterMs: 20 } });
    const kafka = createKafka({ clientId: 'chaos', brokers: stack.kafkaBrokers.split(',') });
    const cpfOffset = Math.floor(Math.random() * 1_000) * 10_000_000;
    const ctx: RunContext = { root: ROOT, kafka, stack, sandbox, apiKey: API_KEY, runId, logDir, cpfOffset };
    const results = await runAll(scenarios, settings, ctx);
    const out = resolve(ROOT, options.out);
    mkdirSync(dirname(out), { recursive: true });
    const report = {
      runId,
      measuredAt: new Date().toISOString(),
      brokers,
      settings,
      ports: stack.ports,
      results,
    };
    writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\n${markdownTable(results)}\n\nJSON: ${out}; replica logs: ${logDir}`);
    const failed = failures(results);
    for (const line of warnings(results)) console.log(`WARN ${line}`);
    for (const line of failed) console.log(`FAIL ${line}`);
    return failed.length > 0 ? 1 : 0;
  } finally {
    await cleanup();
  }
}

const program = new Command('chaos')
  .description('fault suite: replicas, broker, Redis, registry and vendor faults under a steady stream')
  .option('--quick', 'a small run: 150 requests per scenario, 2 replicas, 4 SIGKILL cycles')
  .option('--only <scenarios>', `comma-separated: ${SCENARIOS.map((s) => s.name).join(', ')}`, scenarioList)
  .option('--requests <n>', 'requests per scenario (2000; 3 brokers 6000; quick 150)', positiveInt)
  .option('--rate <n>', 'requests per second (40; 3 brokers 100; quick 15)', positiveInt)
  .option('--kill-cycles <n>', 'SIGKILL cycles (20; quick 4)', positiveInt)
  .option('--node-down <seconds>', 'how long a killed cluster node stays down (20; quick 10)', positiveInt)
  .option('--replicas <n>', 'replica processes, 2 or 3 (3; quick 2)', positiveInt)
  .option(
    '--brokers <n>',
    'Kafka nodes: 1, or 3 for the replicated cluster and its scenarios',
    positiveInt,
    1,
  )
  .option('--port-offset <n>', 'added to the stack default ports', positiveInt, 20_000)
  .option('--keep-stack', 'leave the stack running at the end, its topics intact, to look into a failure')
  .option('--stack-dir <dir>', 'the suite stack folder', '.stack/chaos')
  .option('--out <file>', 'JSON report', 'chaos/results/chaos.json')
  .action(async (options: Options) => {
    // Kafka clients and timers of killed parts may linger: the verdict is in, leave.
    process.exit(await main(options));
  });

program.parseAsync().catch((error: unknown) => {
  console.error(error);
  process.exit(2);
});
