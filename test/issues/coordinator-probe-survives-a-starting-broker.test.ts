/**
 * The test run's first group request (test/global-setup.ts) asks a broker that may have just
 * started whether its group coordinator answers. Asked with the admin client's describeGroups,
 * a group described with an error (a coordinator still loading) crashed the whole vitest process
 * with a segmentation fault inside the client's native binding (confluent-kafka-javascript#531):
 * one CI run in three on a fresh machine failed so, exit 139, before any test ran. Asked as a
 * consumer asks its group's offsets (test/helpers/group-coordinator.ts), the same start is
 * answered.
 *
 * The probe runs in child processes against a broker of the test's own, started on fresh
 * storage, from before it listens, every 10-29 ms with attempts bounded at 500 ms. The crash
 * (gdb: strlen in v8::String::NewFromUtf8 from FromConsumerGroupDescription) came when an
 * attempt timed out waiting for the coordinator: the description of a group that was never
 * answered has no assignor. With describeGroups as the question, a probe crashed in each of 4 runs of this test.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { OwnKafka } from '../helpers/own-kafka.js';

const ROOT = join(import.meta.dirname, '..', '..');
let broker: OwnKafka | undefined;

afterEach(async () => {
  await broker?.close();
  broker = undefined;
});

describe('the coordinator probe of the test run', () => {
  it('answers on a broker as it starts, its process never crashing', async () => {
    broker = await OwnKafka.create();
    // Three probes, each asking from before the broker listens until its coordinator answers,
    // at different paces: between them, many attempts fall while the coordinator loads.
    const probes = [10, 17, 29].map((pauseMs) => probe(broker?.brokers ?? '', pauseMs));
    await broker.start();
    const ended = await Promise.all(probes);
    for (const { code, signal, stdout, stderr } of ended) {
      expect({ code, signal }, `${stdout}\n${stderr}\n(broker log: ${broker.logFile})`).toEqual({
        code: 0,
        signal: null,
      });
      expect(stdout).toContain('coordinator ready');
    }
    // The broker itself ran throughout: the answers came from it, not from probes giving up.
    expect(broker.running).toBe(true);
  });
});

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** test/helpers/group-coordinator-child.ts against `brokers`, attempts bounded at 500 ms. */
function probe(brokers: string, pauseMs: number): Promise<Ended> {
  const child = spawn(
    join(ROOT, 'node_modules', '.bin', 'node'),
    ['--import', 'tsx', 'test/helpers/group-coordinator-child.ts', brokers, String(pauseMs), '500'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('exit', (code, signal) => {
      resolve({ code, signal, stdout, stderr });
    }),
  );
}
