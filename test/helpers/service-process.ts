import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * A real service process (`cli.ts run`); resolves once it logged that it started. One node
 * process with tsx as a loader, not the tsx CLI: that CLI runs the service in a child process,
 * so a SIGKILL sent to it would orphan a live service instead of killing it. `onCleanup`
 * receives a closer that kills the process if it still runs.
 */
export function spawnService(
  env: Record<string, string>,
  onCleanup: (close: () => Promise<void>) => void,
): Promise<ChildProcess> {
  const node = join(ROOT, 'node_modules', '.bin', 'node');
  const child = spawn(node, ['--import', 'tsx', 'src/cli.ts', 'run'], {
    cwd: ROOT,
    env: { ...process.env, ...env, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  });
  // For debugging a failing test: each spawned service's log in its own file.
  const logDir = process.env.TEST_SERVICE_LOG_DIR;
  if (logDir) child.stdout.pipe(createWriteStream(join(logDir, `service-${child.pid}.log`)));
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('"msg":"service started"')) {
        output = '';
        resolve(child);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      reject(new Error(`service exited with ${code}: ${output.slice(-2000)}`));
    });
  });
}

/** A process's resident set in MiB, from /proc (Linux). */
export function rssMiB(pid: number): number {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!line) throw new Error(`no VmRSS for process ${pid}`);
  return Math.round(Number(line[1]) / 1024);
}
