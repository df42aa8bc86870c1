/**
 * A schema registry of a test's own (Apicurio, the local stack's jar) on free ports, which the
 * test may stop and start without touching the shared one. `persistent` keeps its storage in
 * an H2 file across restarts; otherwise it is in memory and a restart loses every schema, like
 * a registry that lost its storage.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const STACK_DIR = process.env.STACK_DIR ?? join(ROOT, '.stack');

/** The registry jar of the local stack, fetched (stack/fetch.sh, Maven) when missing. */
function registryJar(): string {
  const dir = join(STACK_DIR, 'apicurio');
  const find = (): string | undefined =>
    existsSync(dir)
      ? readdirSync(dir).find((name) => name === 'quarkus-run.jar' || name.endsWith('-runner.jar'))
      : undefined;
  if (find() === undefined) spawnSync('bash', [join(ROOT, 'stack', 'fetch.sh')], { stdio: 'inherit' });
  const jar = find();
  if (jar === undefined) throw new Error(`no Apicurio jar in ${dir}; run bash stack/fetch.sh`);
  return join(dir, jar);
}

export class OwnRegistry {
  private child: ChildProcess | undefined;
  private readonly dir = mkdtempSync(join(tmpdir(), 'own-registry-'));

  private constructor(
    private readonly port: number,
    private readonly managementPort: number,
    private readonly persistent: boolean,
  ) {}

  static async start(options: { persistent: boolean }): Promise<OwnRegistry> {
    const registry = new OwnRegistry(await freePort(), await freePort(), options.persistent);
    await registry.start();
    return registry;
  }

  /** Base URL of the Confluent-compatible API. */
  get url(): string {
    return `http://127.0.0.1:${this.port}/apis/ccompat/v7`;
  }

  async start(): Promise<void> {
    const jar = registryJar();
    const cds = join(
      STACK_DIR,
      'cds',
      `${jar
        .split('/')
        .pop()
        ?.replace(/\.jar$/, '')}.jsa`,
    );
    const storage = this.persistent ? `jdbc:h2:file:${join(this.dir, 'db')}` : 'jdbc:h2:mem:registry';
    const log = openSync(join(this.dir, 'registry.log'), 'a');
    this.child = spawn(
      'java',
      [
        '-Xms64m',
        '-Xmx384m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-XX:-UsePerfData',
        ...(existsSync(cds) ? ['-Xshare:auto', `-XX:SharedArchiveFile=${cds}`] : []),
        '-Dquarkus.http.host=127.0.0.1',
        `-Dquarkus.http.port=${this.port}`,
        '-Dquarkus.management.host=127.0.0.1',
        `-Dquarkus.management.port=${this.managementPort}`,
        '-Dquarkus.http.access-log.enabled=false',
        '-Dapicurio.datasource.jdbc.initial-size=2',
        '-Dapicurio.datasource.jdbc.min-size=2',
        `-Dapicurio.datasource.url=${storage}`,
        '-jar',
        jar,
      ],
      { stdio: ['ignore', log, log] },
    );
    const deadline = Date.now() + 120_000;
    while (!(await this.answers())) {
      if (this.child.exitCode !== null || Date.now() > deadline)
        throw new Error(`own registry did not start; see ${join(this.dir, 'registry.log')}`);
      await sleep(250);
    }
  }

  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGTERM');
    if ((await Promise.race([exited, sleep(20_000, 'timeout')])) === 'timeout') {
      child.kill('SIGKILL');
      await exited;
    }
  }

  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** POST or GET on the Confluent-compatible API; the parsed answer and the status. */
  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: await response.json() };
  }

  /** Registers a JSON schema under a subject; returns its id. */
  async register(subject: string, schema: object): Promise<number> {
    const answer = await this.call('POST', `/subjects/${encodeURIComponent(subject)}/versions`, {
      schemaType: 'JSON',
      schema: JSON.stringify(schema),
    });
    const id = (answer.body as { id?: unknown }).id;
    if (typeof id !== 'number')
      throw new Error(`registry answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return id;
  }

  private async answers(): Promise<boolean> {
    try {
      const response = await fetch(`${this.url}/subjects`, { signal: AbortSignal.timeout(2_000) });
      return response.status === 200;
    } catch {
      return false;
    }
  }
}
