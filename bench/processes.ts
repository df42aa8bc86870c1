import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { statCpuSeconds, statusMiB } from './proc.js';

export const ROOT = join(import.meta.dirname, '..');
const NODE = join(ROOT, 'node_modules', '.bin', 'node');

export interface Started {
  child: ChildProcess;
  output: () => string;
}

/**
 * The processes measured run what the image runs (Dockerfile): JavaScript compiled by tsc,
 * with the image's node flags, and no TypeScript loader in the process. Under `--import tsx`
 * the loader's hooks thread (a second V8 isolate) and the transformed sources added to every
 * process's memory and start-up. BENCH_FROM_SOURCE=1 runs the TypeScript through tsx instead.
 */
export const FROM_SOURCE = process.env.BENCH_FROM_SOURCE === '1';

/** Compiles src, the baseline and the floor into dist/ (tsconfig.bench.json); nothing to do from source. */
export function buildForBench(): void {
  if (FROM_SOURCE) return;
  execFileSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', join(ROOT, 'tsconfig.bench.json')], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  // The console's files beside its compiled code, as `npm run build` puts them.
  execFileSync('npm', ['run', '--silent', 'build:assets'], { cwd: ROOT, stdio: 'inherit' });
}

/** The node arguments that run a TypeScript entry point: its compiled file, or the source through tsx. */
export function nodeArgs(entry: readonly string[]): string[] {
  const [file = '', ...rest] = entry;
  return FROM_SOURCE
    ? ['--import', 'tsx', file, ...rest]
    : ['--enable-source-maps', join(ROOT, 'dist', file.replace(/\.ts$/, '.js')), ...rest];
}

/**
 * The processes started and not yet exited. They are killed when the benchmark exits, however
 * it exits: one left behind after a crash kept its ports, and every run after it failed.
 */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts an entry point as ONE node process (not the tsx CLI, which forks a second process),
 * so /proc/<pid> measures exactly the work under test.
 */
export function startNode(
  entry: string[],
  env: Record<string, string | undefined>,
  readyText: string,
  timeoutMs = 60_000,
): Promise<Started> {
  // An undefined value unsets a variable this process has (the one-instance mode's REDIS_URL).
  const merged = Object.fromEntries(
    Object.entries({ ...process.env, ...env }).filter(([, value]) => value !== undefined),
  );
  const child = spawn(NODE, nodeArgs(entry), {
    cwd: ROOT,
    env: merged,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let output = '';
  const logFile = process.env.BENCH_LOG_DIR
    ? createWriteStream(
        join(process.env.BENCH_LOG_DIR, `${entry.join('_').replace(/\W+/g, '_')}-${Date.now()}.log`),
      )
    : undefined;
  const collect = (chunk: Buffer): void => {
    logFile?.write(chunk);
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`${entry.join(' ')} not ready: ${output}`));
    }, timeoutMs);
    const check = (): void => {
      if (output.includes(readyText)) {
        clearTimeout(timer);
        resolve({ child, output: () => output });
      }
    };
    child.stdout.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry.join(' ')} exited with ${code}: ${output}`));
    });
  });
}

export async function stop(started: Started): Promise<void> {
  const { child } = started;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** User + system CPU seconds the process has used so far. */
export function cpuSeconds(pid: number): number {
  return statCpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** Peak resident set size in MiB (VmHWM). */
export function peakRssMiB(pid: number): number {
  return statusMiB(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmHWM');
}

/** Resident set size now, in MiB (VmRSS). */
export function rssMiB(pid: number): number {
  return statusMiB(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS');
}
