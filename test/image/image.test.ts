/**
 * The service image, run as the chart's pod runs it (test/image/pod-spec.ts: user 1000, read-only
 * root file system, no capabilities, no privilege escalation, ConfigMap and env entries, Secrets
 * as files, probes on the admin port), with --network host against the test stack and the vendor
 * sandbox in this process. On demand: `npm run test:image` (build the image first, see docs/deployment.md).
 *
 * Prints what it measured as `[image] …` lines: image size, cold start to ready, stop time with
 * requests in flight, lost and duplicated outcomes across a stop and start.
 */
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { freePort } from '../helpers/free-port.js';
import {
  duplicatedOutcomes,
  publish,
  SANDBOX_KEY,
  serviceEnv,
  summaryRequests,
  testPrefix,
  type OutcomeCollector,
  type Received,
} from '../helpers/service.js';
import { idempotentProducer } from '../helpers/stack.js';
import { useTestKafka } from '../helpers/test-kafka.js';
import { renderPod, type PodRun } from './pod-spec.js';

const run = promisify(execFile);
const docker = async (...args: string[]): Promise<string> =>
  (await run('docker', args, { maxBuffer: 64 * 1024 * 1024 })).stdout.trim();
const report = (line: string): void => void process.stdout.write(`[image] ${line}\n`);

// Short enough for a test, long enough for a window of slow vendor calls to drain.
const SHUTDOWN_TIMEOUT_MS = 10_000;
// Every vendor call takes about this long: requests are in flight when the container is stopped.
const VENDOR_LATENCY_MS = 400;

const stack = useTestKafka();
let pod: PodRun;
let prefix: string;
let sandbox: Sandbox;
let collector: OutcomeCollector;
let container: string;
let secretsDir: string;
let summaryTopic: string;

async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Outcomes per request id of the requests tagged `tag`. */
function outcomesOf(tag: string): [string, Received[]][] {
  return [...collector.outcomesByRequest().entries()].filter(([id]) => id.startsWith(`${tag}-`));
}

async function probe(path: string): Promise<number> {
  try {
    const res = await fetch(`http://127.0.0.1:${pod.adminPort}${path}`, {
      signal: AbortSignal.timeout(2_000),
    });
    await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

async function untilReady(): Promise<number> {
  const started = Date.now();
  await waitUntil('/readyz', async () => {
    const state = await docker('inspect', '-f', '{{.State.Status}}', container);
    if (state !== 'running') throw new Error(`container ${state}:\n${await logs()}`);
    return (await probe(pod.readinessPath)) === 200;
  });
  return Date.now() - started;
}

async function logs(): Promise<string> {
  const out = await run('docker', ['logs', '--tail', '40', container]).catch(() => ({
    stdout: '',
    stderr: '',
  }));
  return `${out.stdout}${out.stderr}`;
}

/** `docker stop` with the given grace; the time it took and the exit code (137: killed). */
async function stopContainer(graceSeconds: number): Promise<{ ms: number; exitCode: number }> {
  const started = Date.now();
  await docker('stop', '-t', String(graceSeconds), container);
  const ms = Date.now() - started;
  const exitCode = Number(await docker('inspect', '-f', '{{.State.ExitCode}}', container));
  return { ms, exitCode };
}

beforeAll(async () => {
  prefix = testPrefix('image');
  summaryTopic = topicNames(prefix).request('lawsuits-summary');
  pod = renderPod({
    'service.port': String(await freePort()),
    'admin.port': String(await freePort()),
    'config.SHUTDOWN_TIMEOUT_MS': String(SHUTDOWN_TIMEOUT_MS),
  });
  sandbox = await stack.sandbox({ latencyMeanMs: VENDOR_LATENCY_MS });

  // The Secret's keys as the pod gets them: files, mode 0400, readable through the fsGroup.
  secretsDir = mkdtempSync(join(tmpdir(), 'vg-image-secrets-'));
  const secretValues: Record<string, string> = {
    VENDOR_API_KEY: SANDBOX_KEY,
    WEBHOOK_SECRET: randomBytes(24).toString('hex'),
    REDIS_ENCRYPTION_KEYS: `image-test:${randomBytes(32).toString('base64')}\n`,
    REDIS_INDEX_KEY: randomBytes(24).toString('hex'),
  };
  const mounts: string[] = [];
  for (const [i, mount] of pod.secretMounts.entries()) {
    const dir = join(secretsDir, String(i));
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    for (const file of mount.files) {
      const value = secretValues[file];
      if (value === undefined) throw new Error(`no test value for the secret file ${file}`);
      writeFileSync(join(dir, file), value);
      chownSync(join(dir, file), 0, pod.user.fsGroup ?? pod.user.gid);
      chmodSync(join(dir, file), 0o440);
    }
    mounts.push('-v', `${dir}:${mount.mountPath}:ro`);
  }

  // The chart's environment; the addresses of the test stack and the sandbox over it, and
  // loopback listeners (the container shares the host's network).
  const local = serviceEnv(prefix, sandbox, {});
  const env: Record<string, string> = {
    ...pod.env,
    KAFKA_BROKERS: local.KAFKA_BROKERS!,
    SCHEMA_REGISTRY_URL: local.SCHEMA_REGISTRY_URL!,
    REDIS_URL: local.REDIS_URL!,
    VENDOR_BASE_URL: sandbox.url,
    ALLOW_INSECURE_VENDOR: 'true',
    TOPIC_PREFIX: prefix,
    KAFKA_GROUP_ID: `${prefix}.service`,
    KAFKA_CLIENT_ID: `${prefix}.service`,
    HTTP_HOST: '127.0.0.1',
    ADMIN_HOST: '127.0.0.1',
    TOPIC_PARTITIONS: '3',
    VENDOR_RATE_PER_SECOND: '200',
    VENDOR_MAX_CONCURRENT: '20',
  };
  const envFile = join(secretsDir, 'env');
  writeFileSync(
    envFile,
    Object.entries(env)
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
  );

  const size = Number(await docker('image', 'inspect', '-f', '{{.Size}}', pod.image));
  report(`${pod.image}: ${(size / 1024 / 1024).toFixed(0)} MiB`);
  const started = Date.now();
  container = await docker(
    'run',
    '-d',
    '--name',
    prefix.replace(/[^a-zA-Z0-9_.-]/g, '-'),
    '--network',
    'host',
    ...pod.securityFlags,
    '--env-file',
    envFile,
    ...mounts,
    pod.image,
    ...pod.args,
  );
  stack.onCleanup(async () => {
    await docker('rm', '-f', container).catch(() => undefined);
    rmSync(secretsDir, { recursive: true, force: true });
  });
  await untilReady();
  report(`cold start to ready: ${Date.now() - started} ms (docker run to ${pod.readinessPath} 200)`);
  collector = await stack.collector(prefix);
}, 300_000);

describe('the service image, run as the chart runs it', () => {
  it('runs as the pod user, with no capabilities, on a read-only root file system', async () => {
    const pid = await docker('inspect', '-f', '{{.State.Pid}}', container);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name: string): string => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1] ?? '';
    expect(field('Uid').split(/\s+/)).toEqual(Array(4).fill(String(pod.user.uid)));
    expect(field('Gid').split(/\s+/)[0]).toBe(String(pod.user.gid));
    expect(pod.dropCapabilities).toEqual(['ALL']);
    expect(BigInt(`0x${field('CapEff')}`)).toBe(0n);
    expect(BigInt(`0x${field('CapBnd')}`)).toBe(0n);
    expect(field('NoNewPrivs')).toBe('1');
    expect(pod.readOnlyRootFilesystem).toBe(true);
    expect(await docker('inspect', '-f', '{{.HostConfig.ReadonlyRootfs}}', container)).toBe('true');
    // Nothing in the image is writable: not /app, not /tmp.
    const write = await run('docker', [
      'exec',
      container,
      'node',
      '-e',
      "require('fs').writeFileSync('/tmp/x', 'x')",
    ]).then(
      () => 'written',
      (error: unknown) => String((error as { stderr?: unknown }).stderr),
    );
    expect(write).toMatch(/EROFS|read-only file system/);
  });

  it('answers the probes of the pod spec on the admin port', async () => {
    expect(await probe(pod.readinessPath)).toBe(200);
    expect(await probe(pod.livenessPath)).toBe(200);
  });

  it('turns a published request into a committed outcome', async () => {
    await publish(stack.kafka, summaryTopic, summaryRequests('one', 1, 0));
    await collector.waitFor(() => collector.outcomesByRequest().has('one-0'), 60_000, 'the outcome of one-0');
    const [outcome] = collector.outcomesByRequest().get('one-0') ?? [];
    expect(outcome?.value.status).toBe('ok');
    expect(outcome?.framed).toBe(true);
  });

  it('stops within SHUTDOWN_TIMEOUT_MS on docker stop with requests in flight, and loses none', async () => {
    const count = 60;
    const callsBefore = sandbox.counters().total;
    await publish(stack.kafka, summaryTopic, summaryRequests('inflight', count, 1_000));
    await waitUntil('vendor calls in flight', () => sandbox.counters().total > callsBefore + 5);
    const answered = outcomesOf('inflight').length;
    // docker stop waits this long before SIGKILL (exit 137): exit 0 means it stopped in time.
    const stop = await stopContainer(SHUTDOWN_TIMEOUT_MS / 1000);
    report(
      `docker stop with ${count} requests published, ${answered} answered: ${stop.ms} ms, exit ${stop.exitCode}`,
    );
    expect(stop.exitCode).toBe(0);
    await docker('start', container);
    report(`restart to ready: ${await untilReady()} ms`);
    await collector.waitFor(() => outcomesOf('inflight').length >= count, 120_000, 'every in-flight outcome');
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // late duplicates would arrive by now
    expect(outcomesOf('inflight')).toHaveLength(count);
    expect(duplicatedOutcomes(outcomesOf('inflight'))).toEqual([]);
  });

  it('loses and duplicates nothing across a docker stop and start under a steady stream', async () => {
    const count = 300;
    const producer = idempotentProducer(stack.kafka);
    await producer.connect();
    stack.onCleanup(() => producer.disconnect());
    const requests = summaryRequests('stream', count, 5_000);
    let sent = 0;
    // 50 requests a second, one at a time, while the container is stopped and started.
    const streaming = (async () => {
      for (const r of requests) {
        await producer.send({
          topic: summaryTopic,
          messages: [{ key: r.key, value: JSON.stringify(r.value) }],
        });
        sent += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    await waitUntil('a third of the stream sent', () => sent >= count / 3);
    const stop = await stopContainer(SHUTDOWN_TIMEOUT_MS / 1000);
    expect(stop.exitCode).toBe(0);
    const sentWhileStopped = sent;
    await docker('start', container);
    const ready = await untilReady();
    await streaming;
    report(
      `stream: stopped at ${sentWhileStopped}/${count} sent (stop ${stop.ms} ms), ready again in ${ready} ms`,
    );
    await collector.waitFor(
      () => outcomesOf('stream').length >= count,
      120_000,
      'every outcome of the stream',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_500)); // late duplicates would arrive by now
    const mine = outcomesOf('stream');
    const lost = count - mine.length;
    const duplicated = duplicatedOutcomes(mine);
    report(
      `stream across docker stop/start: ${count} requests, ${lost} lost, ${duplicated.length} duplicated`,
    );
    expect(lost).toBe(0);
    expect(duplicated).toEqual([]);
  });
});
