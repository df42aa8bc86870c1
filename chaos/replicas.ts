/**
 * Service replicas as separate processes, supervised the way an orchestrator would: a replica
 * that exits on its own (the service exits non-zero after repeated infrastructure failures) is
 * started again after a pause. One node process with tsx as a loader, not the tsx CLI: that CLI
 * runs the service in a child process, which a SIGKILL of the CLI would orphan.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';

const STARTED = '"msg":"service started"';
const START_TIMEOUT_MS = 180_000;
const RESTART_PAUSE_MS = 1_000;

/** Every replica process alive, so that an interrupted run can still kill them all. */
const LIVE = new Set<ChildProcess>();

export function killLiveReplicas(): void {
  for (const child of LIVE) child.kill('SIGKILL');
}

export class Replica {
  /** Exits the suite did not cause. */
  unexpectedExits = 0;
  private child: ChildProcess | undefined;
  private intended = false;
  private supervising = true;
  private restartTimer: NodeJS.Timeout | undefined;
  private starts = 0;

  constructor(
    readonly name: string,
    private readonly root: string,
    private readonly env: Record<string, string>,
    private readonly logDir: string,
  ) {}

  /** SIGSTOP / SIGCONT: a replica frozen (a long GC pause, a stalled VM) and thawed. */
  freeze(): void {
    this.child?.kill('SIGSTOP');
  }

  thaw(): void {
    this.child?.kill('SIGCONT');
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Spawns the process and resolves once it logged that it started. */
  start(): Promise<void> {
    this.intended = false;
    this.starts += 1;
    const log = createWriteStream(join(this.logDir, `${this.name}.${this.starts}.log`));
    const child = spawn(
      join(this.root, 'node_modules', '.bin', 'node'),
      ['--import', 'tsx', 'src/cli.ts', 'run'],
      {
        cwd: this.root,
        env: { ...process.env, ...this.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    LIVE.add(child);
    child.once('exit', (code, signal) => {
      LIVE.delete(child);
      log.end();
      this.onExit(child, code, signal);
    });
    return waitForStart(child, log);
  }

  /** Sends `signal` and waits for the exit; the supervisor does not restart it. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (child === undefined || !this.running) return;
    this.intended = true;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /** Stops the replica for good: SIGTERM, SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<void> {
    this.supervising = false;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (child === undefined || !this.running) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.kill('SIGTERM');
    clearTimeout(timer);
  }

  /** Starts again until it comes up (a start fails while the broker is down, for example). */
  async startUntilUp(deadlineMs: number): Promise<void> {
    for (;;) {
      try {
        await this.start();
        return;
      } catch (error) {
        if (Date.now() > deadlineMs || !this.supervising) throw error;
        await new Promise((resolve) => setTimeout(resolve, RESTART_PAUSE_MS));
      }
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (child !== this.child || this.intended || !this.supervising) return;
    this.unexpectedExits += 1;
    console.log(
      `  ${this.name} exited on its own (code ${code ?? '-'}, signal ${signal ?? '-'}); restarting`,
    );
    this.restartTimer = setTimeout(() => {
      if (this.supervising && !this.running)
        this.startUntilUp(Date.now() + START_TIMEOUT_MS).catch((error: unknown) => {
          console.log(`  ${this.name} could not be restarted: ${String(error)}`);
        });
    }, RESTART_PAUSE_MS);
  }
}

function waitForStart(child: ChildProcess, log: WriteStream): Promise<void> {
  return new Promise((resolve, reject) => {
    let tail = '';
    let started = false;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no start within ${START_TIMEOUT_MS} ms`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      log.write(chunk);
      if (started) return;
      // The line may straddle two chunks; a chunk may be far longer than any tail kept (a
      // replica logging librdkafka's debug lines).
      const seen = tail + chunk.toString();
      tail = seen.slice(-STARTED.length);
      if (seen.includes(STARTED)) {
        started = true;
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (!started)
        reject(new Error(`exited before it started (code ${code ?? '-'}, signal ${signal ?? '-'})`));
    });
  });
}
