/**
 * One scenario: fresh topics (own prefix) and replicas, the stream, the fault in the middle of
 * the stream, then waiting until every request has its outcome (or the settle time is over),
 * and counting.
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Kafka } from '../src/kafka/client.js';
import { fingerprintOf, type Sandbox } from '../src/sandbox/index.js';
import { replicaTransactionalId } from './cluster.js';
import { misframedValues } from './framing.js';
import { Replica } from './replicas.js';
import { longestStall, stallsPerFault, type ScenarioResult } from './report.js';
import type { FaultContext, Scenario, ScenarioSettings } from './scenarios.js';
import type { ChaosStack } from './stack.js';
import { OPERATION, OutcomeObserver, RequestStream, type SentRequest } from './traffic.js';

export interface RunSettings extends ScenarioSettings {
  requests: number;
  ratePerSecond: number;
  replicas: number;
  /** How long the stream goes on after the fault, so that recovery can be seen. */
  tailMs: number;
  settleMs: number;
  warmupOutcomes: number;
}

export interface RunContext {
  root: string;
  kafka: Kafka;
  stack: ChaosStack;
  sandbox: Sandbox;
  apiKey: string;
  runId: string;
  logDir: string;
  cpfOffset: number;
}

/** One pair per run: replicas of a run share what they seal in Redis. */
const CHAOS_DATA_KEYS = `chaos:${randomBytes(32).toString('base64')}`;
const CHAOS_INDEX_KEY = randomBytes(32).toString('base64');

/**
 * Settings of every replica: the vendor's limits and retries sized for the sandbox; every Kafka
 * setting (session, request and transaction timeouts, commit interval) at its default, as a
 * deployment runs them.
 */
function replicaEnv(ctx: RunContext, prefix: string, partitions: number): Record<string, string> {
  return {
    KAFKA_BROKERS: ctx.stack.kafkaBrokers,
    SCHEMA_REGISTRY_URL: ctx.stack.registryUrl,
    REDIS_URL: ctx.stack.redisUrl,
    REDIS_ENCRYPTION_KEYS: CHAOS_DATA_KEYS,
    REDIS_INDEX_KEY: CHAOS_INDEX_KEY,
    VENDOR_BASE_URL: ctx.sandbox.url,
    ALLOW_INSECURE_VENDOR: 'true',
    VENDOR_API_KEY: ctx.apiKey,
    TOPIC_PREFIX: prefix,
    TOPIC_PARTITIONS: String(partitions),
    KAFKA_GROUP_ID: `${prefix}.service`,
    KAFKA_CLIENT_ID: `${prefix}.service`,
    HTTP_HOST: '127.0.0.1',
    HTTP_PORT: '0',
    ADMIN_HOST: '127.0.0.1',
    ADMIN_PORT: '0',
    VENDOR_RATE_PER_SECOND: '1000',
    VENDOR_MAX_CONCURRENT: '50',
    VENDOR_TIMEOUT_MS: '3000',
    RETRY_BASE_MS: '200',
    RETRY_MAX_DELAY_MS: '2000',
    RETRY_BUDGET_MS: '6000',
    BREAKER_COOLDOWN_MS: '3000',
    SHUTDOWN_TIMEOUT_MS: '5000',
    // CHAOS_REPLICA_LOG_LEVEL=debug with KAFKA_CLIENT_DEBUG=eos,cgrp,... in the runner's
    // environment puts librdkafka's own lines in each replica's log.
    LOG_LEVEL: process.env.CHAOS_REPLICA_LOG_LEVEL ?? 'info',
    // As the image and `npm start` set it (src/threadpool.ts).
    UV_THREADPOOL_SIZE: '64',
    // A cluster replicates every topic three ways (min.insync.replicas=2 from the brokers), and
    // its replicas keep the default request timeout (CHAOS_REQUEST_TIMEOUT_MS).
    TOPIC_REPLICATION_FACTOR: String(ctx.stack.brokers),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await sleep(200);
  }
  return true;
}

export async function runScenario(
  ctx: RunContext,
  scenario: Scenario,
  settings: RunSettings,
  index: number,
): Promise<ScenarioResult> {
  const started = Date.now();
  const prefix = `chaos.${ctx.runId}.${scenario.name.replace(/-/g, '_')}`;
  const logDir = join(ctx.logDir, scenario.name);
  mkdirSync(logDir, { recursive: true });
  ctx.sandbox.setKnobs({ errorRate: 0 });
  ctx.sandbox.reset();
  const env = replicaEnv(ctx, prefix, settings.replicas * 2);
  const replicas = Array.from(
    { length: settings.replicas },
    (_, i) =>
      new Replica(
        `replica-${i + 1}`,
        ctx.root,
        // A replica keeps its transactional id across restarts, as a container restarted in its
        // pod does (the default id is <group>.<hostname>.<pid>, pid 1 there): its successor's
        // InitProducerId aborts what it left open, instead of the transaction timeout.
        { ...env, KAFKA_TRANSACTIONAL_ID: replicaTransactionalId(prefix, i + 1) },
        logDir,
      ),
  );
  const stream = new RequestStream(ctx.kafka, prefix, scenario.name, ctx.cpfOffset + index * 1_000_000);
  const observer = new OutcomeObserver(ctx.kafka, prefix);
  const driverLog = join(logDir, 'driver.log');
  const log = (message: string): void => {
    console.log(`  [${scenario.name}] ${message}`);
    appendFileSync(driverLog, `${new Date().toISOString()} ${message}\n`);
  };
  const faultTimes: number[] = [];
  const markFault = (): void => {
    faultTimes.push(Date.now());
  };
  try {
    // The first replica creates the topics; the others join its group.
    await replicas[0]!.startUntilUp(Date.now() + 180_000);
    await Promise.all(replicas.slice(1).map((r) => r.startUntilUp(Date.now() + 180_000)));
    log(`${replicas.length} replicas up`);
    await observer.start();
    await stream.start(settings.ratePerSecond);
    const fault: FaultContext = { ...ctx, prefix, replicas, settings, stream, observer, log, markFault };
    const { kills, faultStart, faultEnd } = await driveFault(scenario, fault, settings);
    const settled = await waitUntil(
      () => observer.copiesSeen() >= stream.sent.length && observer.unanswered() === 0,
      settings.settleMs,
    );
    if (!settled) log(`not every request answered within ${settings.settleMs} ms`);
    // Late duplicates would come after the last outcome: give them time to show.
    await sleep(3_000);
    return await count(scenario, {
      stream,
      observer,
      sandbox: ctx.sandbox,
      registryUrl: ctx.stack.registryUrl,
      replicas,
      kills,
      faultStart,
      faultEnd,
      faultTimes,
      started,
    });
  } finally {
    await Promise.allSettled(replicas.map((r) => r.stop()));
    await Promise.allSettled([stream.close(), observer.stop()]);
    writeFileSync(join(logDir, 'arrivals.jsonl'), observer.arrivals.map((a) => JSON.stringify(a)).join('\n'));
  }
}

/**
 * Waits for the first outcomes, runs the fault, lets the stream run on past it, then publishes
 * the scenario's upstream duplicates.
 */
async function driveFault(
  scenario: Scenario,
  fault: FaultContext,
  settings: RunSettings,
): Promise<{ kills: number; faultStart: number; faultEnd: number }> {
  const { stream, observer } = fault;
  // Enough answered before the fault to send as upstream duplicates after it.
  const warmup =
    scenario.duplicatesOf === undefined
      ? settings.warmupOutcomes
      : Math.max(settings.warmupOutcomes, settings.upstreamDuplicates);
  await waitUntil(() => outcomesSoFar(observer) >= warmup, 120_000);
  const faultStart = Date.now();
  const kills = await scenario.fault(fault);
  const faultEnd = Date.now();
  await waitUntil(
    () => stream.sent.length >= settings.requests && Date.now() >= faultEnd + settings.tailMs,
    Math.max(settings.tailMs, (settings.requests / settings.ratePerSecond) * 1_000) + 60_000,
  );
  await stream.halt();
  const duplicates = scenario.duplicatesOf?.(fault, faultStart) ?? [];
  if (duplicates.length > 0) {
    await stream.republish(duplicates);
    fault.log(`${duplicates.length} upstream duplicates of requests answered before the fault published`);
  }
  return { kills, faultStart, faultEnd };
}

/**
 * The contract's rule for one requestId: every request message (each upstream copy too) yields
 * exactly one outcome, a result or a dead letter. Fewer is a loss, more a duplicate, whichever
 * topics they are on.
 */
export function verdictOf(
  tally: { copies: number; outcomes: number },
  acked: boolean,
): { expected: number; lost: boolean; duplicated: boolean } {
  const expected = Math.max(tally.copies, acked ? 1 : 0);
  return { expected, lost: tally.outcomes < expected, duplicated: tally.outcomes > expected };
}

function outcomesSoFar(observer: OutcomeObserver): number {
  let count = 0;
  for (const tally of observer.byRequest.values()) count += tally.outcomes;
  return count;
}

interface Counted {
  stream: RequestStream;
  observer: OutcomeObserver;
  sandbox: Sandbox;
  registryUrl: string;
  replicas: Replica[];
  kills: number;
  faultStart: number;
  faultEnd: number;
  faultTimes: number[];
  started: number;
}

async function count(scenario: Scenario, c: Counted): Promise<ScenarioResult> {
  const acked = new Set(c.stream.sent.map((s: SentRequest) => s.requestId));
  const taxIds = new Map(c.stream.sent.map((s) => [s.requestId, s.taxId]));
  const billed = c.sandbox.counters().byFingerprint;
  const lost: string[] = [];
  const duplicated: string[] = [];
  let extraBillable = 0;
  let deadLettered = 0;
  let recoveryAt: number | undefined;
  // The first acknowledgement: an upstream duplicate sent later is no new request.
  const ackedAt = new Map<string, number>();
  for (const s of c.stream.sent) if (!ackedAt.has(s.requestId)) ackedAt.set(s.requestId, s.ackedAt);
  const ids = new Set([...acked, ...c.observer.byRequest.keys()]);
  for (const id of ids) {
    const tally = c.observer.byRequest.get(id) ?? { copies: 0, outcomes: 0, deadLetters: 0 };
    const verdict = verdictOf(tally, acked.has(id));
    if (verdict.lost) lost.push(`${id}: ${tally.outcomes} of ${verdict.expected}`);
    if (verdict.duplicated) duplicated.push(`${id}×${tally.outcomes}`);
    if (tally.deadLetters > 0) deadLettered += 1;
    const taxId = taxIds.get(id);
    if (taxId !== undefined) extraBillable += Math.max(0, (billed[fingerprintOf(OPERATION, taxId)] ?? 0) - 1);
    const sentAt = ackedAt.get(id);
    const answeredAt = tally.firstOutcomeAt;
    if (sentAt !== undefined && sentAt >= c.faultEnd && answeredAt !== undefined)
      recoveryAt = Math.min(recoveryAt ?? answeredAt, answeredAt);
  }
  return {
    scenario: scenario.name,
    description: scenario.description,
    requests: acked.size,
    messagesPublished: c.observer.copiesSeen(),
    lost: lost.length,
    duplicateOutcomes: duplicated.length,
    deadLettered,
    misframed: await misframedValues(c.registryUrl, c.observer.framed.values(), c.faultEnd),
    extraBillableCalls: extraBillable,
    kills: c.kills,
    unexpectedExits: c.replicas.reduce((sum, r) => sum + r.unexpectedExits, 0),
    recoveryMs: recoveryAt === undefined ? null : recoveryAt - c.faultEnd,
    stallMs: longestStall(c.observer.outcomeTimes, c.faultStart),
    stallsMs: stallsPerFault(c.observer.outcomeTimes, c.faultTimes),
    drainMs: c.observer.lastOutcomeAt > c.faultEnd ? c.observer.lastOutcomeAt - c.faultEnd : 0,
    durationMs: Date.now() - c.started,
    lostSample: lost.slice(0, 20),
    duplicateSample: duplicated.slice(0, 20),
  };
}
