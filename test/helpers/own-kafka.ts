/**
 * A Kafka broker of a test's own (the local stack's jars, single KRaft node, plaintext only) on
 * free ports, on storage formatted afresh: a broker as it is the first moment after a stack
 * starts, which a test may talk to before it is ready. `start` returns once the process runs,
 * not once it answers.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './free-port.js';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const STACK_DIR = process.env.STACK_DIR ?? join(ROOT, '.stack');
const JVM = ['-Xms128m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:-UsePerfData'];

export class OwnKafka {
  private child: ChildProcess | undefined;

  private constructor(
    private readonly dir: string,
    private readonly port: number,
  ) {}

  get brokers(): string {
    return `127.0.0.1:${this.port}`;
  }

  get logFile(): string {
    return join(this.dir, 'kafka.log');
  }

  /** A broker on free ports, not started yet: its address is known before it listens. */
  static async create(): Promise<OwnKafka> {
    return new OwnKafka(mkdtempSync(join(tmpdir(), 'own-kafka-')), await freePort());
  }

  /** Formats fresh storage (one JVM run) and starts the broker; returns at once after. */
  async start(): Promise<void> {
    const libs = join(STACK_DIR, 'kafka', 'libs');
    if (!existsSync(libs)) await run('bash', [join(ROOT, 'stack', 'fetch.sh')], { timeout: 600_000 });
    const { dir, port } = this;
    const controllerPort = await freePort();
    const config = join(dir, 'server.properties');
    writeFileSync(
      config,
      [
        'process.roles=broker,controller',
        'node.id=1',
        `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
        `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
        `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
        'controller.listener.names=CONTROLLER',
        'inter.broker.listener.name=PLAINTEXT',
        'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
        `log.dirs=${join(dir, 'data')}`,
        // The settings every broker of the project shares (single node: factors of 1).
        readFileSync(join(ROOT, 'stack', 'kafka-broker.properties'), 'utf8'),
      ].join('\n'),
    );
    const classpath = ['-cp', `${libs}/*`];
    await run(
      'java',
      [...JVM, ...classpath, 'kafka.tools.StorageTool', 'format', '-t', clusterId(), '-c', config],
      { timeout: 120_000 },
    );
    const log = openSync(this.logFile, 'a');
    this.child = spawn(
      'java',
      [
        ...JVM,
        `-Dlog4j2.configurationFile=${join(ROOT, 'stack', 'kafka-log4j2.properties')}`,
        `-Dkafka.logs.dir=${dir}`,
        ...classpath,
        'kafka.Kafka',
        config,
      ],
      { stdio: ['ignore', log, log] },
    );
  }

  /** Whether the broker process still runs. */
  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      if ((await Promise.race([exited, sleep(20_000, 'timeout')])) === 'timeout') {
        child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A KRaft cluster id: 16 random bytes, base64url without padding, as kafka-storage random-uuid. */
function clusterId(): string {
  return randomBytes(16).toString('base64url');
}
