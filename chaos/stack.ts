/**
 * The suite's own Kafka + registry + Redis: stack/up.sh and stack/down.sh with another STACK_DIR
 * and shifted ports, so that killing its processes never touches a stack other runs share.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type StackPart = 'kafka' | 'registry' | 'redis';

export interface StackPorts {
  kafka: number;
  controller: number;
  registry: number;
  management: number;
  redis: number;
}

/** The default ports of stack/up.sh, each moved by `offset`. */
export function shiftedPorts(offset: number): StackPorts {
  return {
    kafka: 9092 + offset,
    controller: 9093 + offset,
    registry: 8081 + offset,
    management: 8082 + offset,
    redis: 6379 + offset,
  };
}

export class ChaosStack {
  constructor(
    private readonly root: string,
    readonly dir: string,
    readonly ports: StackPorts,
  ) {}

  get kafkaBrokers(): string {
    return `127.0.0.1:${this.ports.kafka}`;
  }

  get registryUrl(): string {
    return `http://127.0.0.1:${this.ports.registry}/apis/ccompat/v7`;
  }

  get redisUrl(): string {
    return `redis://127.0.0.1:${this.ports.redis}`;
  }

  /** Starts whatever part is not running (up.sh is idempotent) and waits until all answer. */
  async up(): Promise<void> {
    this.shareBinaries();
    await this.script('up.sh');
  }

  /** Stops the stack and deletes its data. */
  async down(): Promise<void> {
    await this.script('down.sh');
  }

  pid(part: StackPart): number | undefined {
    const file = join(this.dir, 'run', `${part}.pid`);
    if (!existsSync(file)) return undefined;
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  }

  /** Sends `signal` to one part and waits until its process is gone. */
  async kill(part: StackPart, signal: NodeJS.Signals, timeoutMs = 60_000): Promise<void> {
    const pid = this.pid(part);
    if (pid === undefined || !isRunning(pid)) throw new Error(`${part} is not running`);
    process.kill(pid, signal);
    const deadline = Date.now() + timeoutMs;
    while (isRunning(pid)) {
      if (Date.now() > deadline) process.kill(pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async script(name: string): Promise<void> {
    await run('bash', [join(this.root, 'stack', name)], {
      cwd: this.root,
      env: {
        ...process.env,
        STACK_DIR: this.dir,
        KAFKA_PORT: String(this.ports.kafka),
        KAFKA_CONTROLLER_PORT: String(this.ports.controller),
        REGISTRY_PORT: String(this.ports.registry),
        REGISTRY_MANAGEMENT_PORT: String(this.ports.management),
        REDIS_PORT: String(this.ports.redis),
      },
      maxBuffer: 16 * 1024 * 1024,
    });
  }

  /**
   * Links the binaries that the default stack already fetched (.stack/) instead of downloading
   * them again; without them up.sh fetches into the suite's own folder.
   */
  private shareBinaries(): void {
    const source = join(this.root, '.stack');
    const stamp = join(source, 'fetched.sha256');
    if (existsSync(join(this.dir, 'fetched.sha256')) || !existsSync(stamp)) return;
    mkdirSync(join(this.dir, 'kafka'), { recursive: true });
    for (const part of ['apicurio', 'markers', join('kafka', 'libs')]) {
      if (existsSync(join(source, part)) && !existsSync(join(this.dir, part)))
        symlinkSync(join(source, part), join(this.dir, part));
    }
    copyFileSync(stamp, join(this.dir, 'fetched.sha256'));
  }
}

/** True while the process exists and is not a zombie (a killed daemon may wait to be reaped). */
export function isRunning(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const state = /^State:\s*([A-Z])/m.exec(status)?.[1];
    return state !== undefined && state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
