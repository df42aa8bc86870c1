/**
 * The faults. Each one runs while the request stream flows; it returns once the fault is over
 * (the killed part is back), which is when the recovery time starts.
 */
import type { Kafka } from '../src/kafka/client.js';
import type { Sandbox } from '../src/sandbox/index.js';
import { CLUSTER_SCENARIOS } from './cluster-scenarios.js';
import type { Replica } from './replicas.js';
import type { ChaosStack } from './stack.js';
import type { OutcomeObserver, RequestStream, SentRequest } from './traffic.js';

export interface ScenarioSettings {
  killCycles: number;
  /** How long a killed stack part stays down. */
  downMs: number;
  /** Vendor outage: longer than the replicas' retry budget. */
  outageMs: number;
  upstreamDuplicates: number;
  /** How long a killed cluster node stays down. */
  nodeDownMs: number;
  /** How long a network fault (Toxiproxy) lasts. */
  networkFaultMs: number;
  /** How long a frozen replica stays frozen: past its session timeout. */
  zombieMs: number;
}

export interface FaultContext {
  kafka: Kafka;
  /** The scenario's topic prefix; the replicas' group is `<prefix>.service`. */
  prefix: string;
  stack: ChaosStack;
  replicas: Replica[];
  sandbox: Sandbox;
  settings: ScenarioSettings;
  stream: RequestStream;
  observer: OutcomeObserver;
  log(message: string): void;
  /** Marks the moment a fault strikes (a kill, a freeze, a network fault's start): stalls are counted per mark. */
  markFault(): void;
}

export interface Scenario {
  name: string;
  /** `only`: runs on a three-node stack (`--brokers 3`) alone; `also`: on both; none: on one node alone. */
  cluster?: 'only' | 'also';
  description: string;
  /** Runs the fault; resolves with the kills made, once the fault is over. */
  fault(ctx: FaultContext): Promise<number>;
  /** After the stream: upstream duplicates of requests answered before the fault, if any. */
  duplicatesOf?(ctx: FaultContext, faultStart: number): SentRequest[];
}

const START_DEADLINE_MS = 180_000;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function killStackPart(ctx: FaultContext, part: 'kafka' | 'registry' | 'redis'): Promise<number> {
  await ctx.stack.kill(part, 'SIGKILL');
  ctx.markFault();
  ctx.log(`${part} killed; down for ${ctx.settings.downMs} ms`);
  await sleep(ctx.settings.downMs);
  await ctx.stack.up();
  ctx.log(`${part} back`);
  return 1;
}

const sigkillCycles: Scenario = {
  name: 'sigkill',
  description: 'SIGKILL of a random replica, started again at once, cycle after cycle',
  async fault(ctx) {
    for (let cycle = 1; cycle <= ctx.settings.killCycles; cycle += 1) {
      const replica = ctx.replicas[Math.floor(Math.random() * ctx.replicas.length)]!;
      await replica.kill('SIGKILL');
      ctx.markFault();
      ctx.log(`cycle ${cycle}/${ctx.settings.killCycles}: ${replica.name} killed`);
      await replica.startUntilUp(Date.now() + START_DEADLINE_MS);
      // Some work lands on the new process before the next kill.
      await sleep(1_000 + Math.random() * 1_000);
    }
    return ctx.settings.killCycles;
  },
};

const rollingRestart: Scenario = {
  name: 'rolling-sigterm',
  description: 'each replica in turn stopped with SIGTERM and started again (a rolling deploy)',
  async fault(ctx) {
    for (const replica of ctx.replicas) {
      await replica.kill('SIGTERM');
      ctx.markFault();
      ctx.log(`${replica.name} stopped (SIGTERM)`);
      await replica.startUntilUp(Date.now() + START_DEADLINE_MS);
      await sleep(2_000);
    }
    return ctx.replicas.length;
  },
};

const brokerRestart: Scenario = {
  name: 'broker',
  description: 'the Kafka broker killed (SIGKILL) and started again',
  fault: (ctx) => killStackPart(ctx, 'kafka'),
};

const redisRestart: Scenario = {
  name: 'redis',
  description:
    'Redis killed (SIGKILL) and started again on its append-only file; then upstream duplicates of requests answered before',
  fault: (ctx) => killStackPart(ctx, 'redis'),
  duplicatesOf(ctx, faultStart) {
    const answered = ctx.stream.sent.filter((request) => {
      const at = ctx.observer.byRequest.get(request.requestId)?.firstOutcomeAt;
      return at !== undefined && at < faultStart;
    });
    return answered.slice(0, ctx.settings.upstreamDuplicates);
  },
};

const registryRestart: Scenario = {
  name: 'registry',
  description: 'the schema registry killed and started again (in-memory storage: it comes back empty)',
  fault: (ctx) => killStackPart(ctx, 'registry'),
};

const vendorOutage: Scenario = {
  name: 'vendor-outage',
  description: 'every vendor call answers 503 for longer than the retry budget, then the vendor recovers',
  async fault(ctx) {
    ctx.sandbox.setKnobs({ errorRate: 1, errorKind: '5xx', errorStatus: 503 });
    ctx.markFault();
    ctx.log(`vendor failing for ${ctx.settings.outageMs} ms`);
    await sleep(ctx.settings.outageMs);
    ctx.sandbox.setKnobs({ errorRate: 0 });
    ctx.log('vendor healthy again');
    return 0;
  },
};

const SINGLE_BROKER_SCENARIOS: readonly Scenario[] = [
  sigkillCycles,
  rollingRestart,
  brokerRestart,
  redisRestart,
  registryRestart,
  vendorOutage,
];

/** Every scenario; `--brokers` picks those of its stack (see `cluster`). */
export const SCENARIOS: readonly Scenario[] = [...SINGLE_BROKER_SCENARIOS, ...CLUSTER_SCENARIOS];

export function scenariosFor(brokers: 1 | 3): Scenario[] {
  return SCENARIOS.filter((s) => (brokers === 3 ? s.cluster !== undefined : s.cluster !== 'only'));
}
