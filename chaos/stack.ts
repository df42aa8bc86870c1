/**
 * The suite's own Kafka + registry + Redis: stack/up.sh and stack/down.sh with another STACK_DIR
 * and shifted ports, so that killing its processes never touches a stack other runs share.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** `kafka` is node 1; a three-node stack adds `kafka-2` and `kafka-3`. */
export type StackPart = 'kafka' | 'kafka-2' | 'kafka-3' | 'registry' | 'redis';

export interface StackPorts {
  kafka: number;
  controller: number;
  /** The SASL_SSL listener stack/up.sh adds (unused by the suite, moved all the same). */
  secure: number;
  registry: number;
  management: number;
  redis: number;
  toxiproxy: number;
}

/** The default ports of stack/up.sh, each moved by `offset`. */
export function shiftedPorts(offset: number): StackPorts {
  return {
    kafka: 9092 + offset,
    controller: 9093 + offset,
    secure: 9094 + offset,
    registry: 8081 + offset,
    management: 8082 + offset,
    redis: 6379 + offset,
    toxiproxy: 8474 + offset,
  };
}

export class ChaosStack {
  /**
   * `brokers` 3: a replicated cluster (stack/up.sh, STACK_BROKERS=3) with a Toxiproxy in front of
   * each node's client listener (STACK_TOXIPROXY=1), so faults can sit between clients and one broker.
   */
  constructor(
    private readonly root: string,
    readonly dir: string,
    readonly ports: StackPorts,
    readonly brokers: 1 | 3 = 1,
  ) {}

  /** Node ids 1..brokers. */
  get nodeIds(): number[] {
    return Array.from({ length: this.brokers }, (_, i) => i + 1);
  }

  /** The client address of a node (its proxy's in a cluster): stack/up.sh's layout. */
  nodeAddress(nodeId: number): string {
    return `127.0.0.1:${this.ports.kafka + 10 * (nodeId - 1)}`;
  }

  get kafkaBrokers(): string {
    return this.nodeIds.map((id) => this.nodeAddress(id)).join(',');
  }

  get toxiproxyUrl(): string {
    return `http://127.0.0.1:${this.ports.toxiproxy}`;
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

  /**
   * The node id of the active KRaft controller, the quorum's leader, from Kafka's own tool: a
   * broker's DescribeCluster names any live broker as the controller under KRaft (KIP-919).
   */
  async activeController(): Promise<number> {
    const controllers = this.nodeIds.map((id) => `127.0.0.1:${this.ports.controller + 10 * (id - 1)}`);
    const { stdout } = await run(
      'java',
      [
        '-XX:TieredStopAtLevel=1',
        '-cp',
        join(this.dir, 'kafka', 'libs', '*'),
        'org.apache.kafka.tools.MetadataQuorumCommand',
        '--bootstrap-controller',
        controllers.join(','),
        'describe',
        '--status',
      ],
      { timeout: 60_000 },
    );
    const leader = /^LeaderId:\s*(\d+)/m.exec(stdout)?.[1];
    if (leader === undefined) throw new Error(`no LeaderId in the metadata quorum's status: ${stdout}`);
    return Number(leader);
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
        KAFKA_SECURE_PORT: String(this.ports.secure),
        REGISTRY_PORT: String(this.ports.registry),
        REGISTRY_MANAGEMENT_PORT: String(this.ports.management),
        REDIS_PORT: String(this.ports.redis),
        STACK_BROKERS: String(this.brokers),
        STACK_TOXIPROXY: this.brokers > 1 ? '1' : '0',
        TOXIPROXY_PORT: String(this.ports.toxiproxy),
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
    for (const part of ['apicurio', 'markers', 'bin', join('kafka', 'libs')]) {
      if (existsSync(join(source, part)) && !existsSync(join(this.dir, part)))
        symlinkSync(join(source, part), join(this.dir, part));
    }
    copyFileSync(stamp, join(this.dir, 'fetched.sha256'));
  }
}

/** The stack part (pid file name) of a Kafka node. */
export function nodePart(nodeId: number): StackPart {
  if (nodeId === 1) return 'kafka';
  if (nodeId === 2) return 'kafka-2';
  if (nodeId === 3) return 'kafka-3';
  throw new Error(`no Kafka node ${nodeId}`);
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
