/**
 * Vitest globalSetup of the `integration` project: finds or starts Kafka, a Confluent-compatible
 * schema registry and Redis, and hands their addresses to the tests through `inject(...)`:
 *
 *   1. KAFKA_BROKERS, SCHEMA_REGISTRY_URL and REDIS_URL from the environment, when all are set;
 *   2. else the local stack when it already runs (.ci/run, npm run stack:up);
 *   3. else testcontainers, when a Docker engine answers and has (or can pull) the images
 *      (TEST_STACK=docker forces it; scripts/images.sh builds them where nothing can be pulled);
 *   4. else the local stack (stack/up.sh, idempotent; TEST_STACK=local forces it), with one line
 *      saying why when Docker answered. The stack is stopped at teardown only when this run
 *      started it and no other test run still uses it.
 * The order is test/helpers/stack-choice.ts, pinned by test/unit/stack-choice.test.ts.
 *
 * `inject('kafkaSecure')` describes the broker's SASL_SSL listener (KAFKA_SECURE_* in the
 * environment, or what stack/up.sh printed), or says why there is none: the tests that need it
 * fail with that message rather than skip.
 *
 * process.env is left alone on purpose: the unit project runs in the same vitest process, and its
 * tests must not see the integration endpoints. (Only TESTCONTAINERS_RYUK_DISABLED may be set,
 * when testcontainers' reaper image cannot be had.)
 */
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import type { Admin } from '../src/kafka/client.js';
import { groupCoordinatorReady } from './helpers/group-coordinator.js';
import { kafkaContainerEnvironment } from './helpers/kafka-container.js';
import { secureFrom, type SecureKafka } from './helpers/secure-listener.js';
import { chooseStack, parseStackMode } from './helpers/stack-choice.js';
import type { StackEndpoints } from './helpers/stack.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    schemaRegistryUrl: string;
    redisUrl: string;
    kafkaSecure: SecureKafka;
  }
}

type Teardown = () => Promise<void>;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const STACK_DIR = process.env.STACK_DIR ?? join(ROOT, '.stack');
const RUN_DIR = join(STACK_DIR, 'run');
const LEASE_DIR = join(RUN_DIR, 'leases');

const KAFKA_IMAGE = 'apache/kafka:4.3.1';
const REGISTRY_IMAGE = 'apicurio/apicurio-registry:3.0.9';
const REDIS_IMAGE = 'redis:7-bookworm';
const CONTAINER_IMAGES = [KAFKA_IMAGE, REGISTRY_IMAGE, REDIS_IMAGE] as const;
const RYUK_IMAGE = 'testcontainers/ryuk:0.14.0';

export default async function setup(project: TestProject): Promise<Teardown | undefined> {
  const started = Date.now();
  const { endpoints, source, teardown } = await resolveStack();
  try {
    await groupCoordinatorReady(endpoints.kafkaBrokers);
  } catch (err) {
    await teardown?.();
    throw err;
  }
  project.provide('kafkaBrokers', endpoints.kafkaBrokers);
  project.provide('schemaRegistryUrl', endpoints.schemaRegistryUrl);
  project.provide('redisUrl', endpoints.redisUrl);
  project.provide('kafkaSecure', endpoints.kafkaSecure);
  const secure =
    'brokers' in endpoints.kafkaSecure
      ? `KAFKA_SECURE_BROKERS=${endpoints.kafkaSecure.brokers}`
      : 'no SASL_SSL listener';
  console.log(
    `[global-setup] ${source} (${Date.now() - started} ms): KAFKA_BROKERS=${endpoints.kafkaBrokers} ` +
      `SCHEMA_REGISTRY_URL=${endpoints.schemaRegistryUrl} REDIS_URL=${endpoints.redisUrl} ${secure}`,
  );
  return teardown;
}

/**
 * Retries `ask` with a fresh admin client of `brokers` every `pauseMs` until it answers, for up
 * to two minutes; the client is loaded only here, as testcontainers is.
 */
async function untilAdminAnswers(
  brokers: string,
  pauseMs: number,
  ask: (admin: Admin) => Promise<unknown>,
): Promise<void> {
  const { createKafka } = await import('../src/kafka/client.js');
  const kafka = createKafka({ brokers: brokers.split(','), connectionTimeoutMs: 5_000 });
  const deadline = Date.now() + 120_000;
  for (;;) {
    const admin = kafka.admin();
    try {
      await admin.connect();
      await ask(admin);
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, pauseMs));
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }
}

async function resolveStack(): Promise<{
  endpoints: StackEndpoints;
  source: string;
  teardown?: Teardown;
}> {
  const fromEnv = endpointsFromEnv();
  let docker: DockerTarget | undefined;
  const choice = await chooseStack({
    mode: parseStackMode(process.env.TEST_STACK),
    endpointsInEnvironment: fromEnv !== undefined,
    localStackRunning: stackRunning,
    dockerAnswers: async () => (docker = await dockerTarget()) !== undefined,
    missingImage: () => (docker ? missingImage(docker, CONTAINER_IMAGES) : Promise.resolve(undefined)),
  });
  if (choice.stack === 'environment' && fromEnv) return { endpoints: fromEnv, source: 'environment' };
  if (choice.stack === 'docker') {
    docker ??= await dockerTarget();
    if (!docker) throw new Error('TEST_STACK=docker, but no Docker engine answers');
    const missing = await missingImage(docker, CONTAINER_IMAGES);
    if (missing !== undefined) {
      throw new Error(`TEST_STACK=docker, but ${missing}: build the images with scripts/images.sh`);
    }
    // Ryuk (testcontainers' reaper) is one more image to pull; without it the teardown below
    // still stops the containers, only a killed run leaves them behind.
    if (
      process.env.TESTCONTAINERS_RYUK_DISABLED === undefined &&
      (await missingImage(docker, [RYUK_IMAGE]))
    ) {
      console.log(`[global-setup] ${RYUK_IMAGE} cannot be had: testcontainers runs without its reaper`);
      process.env.TESTCONTAINERS_RYUK_DISABLED = 'true';
    }
    // A local engine publishes the containers' ports on every host address, loopback
    // included: the tests reach them there, not through the bridge's gateway address that
    // testcontainers names by default (172.17.0.1), so a test run talks to 127.0.0.1 only.
    if (typeof docker === 'object' && 'socketPath' in docker)
      process.env.TESTCONTAINERS_HOST_OVERRIDE ??= '127.0.0.1';
    return { ...(await startContainers()), source: 'testcontainers' };
  }
  if (choice.stack === 'local' && choice.say) console.log(`[global-setup] local stack: ${choice.why}`);
  return { ...(await startLocalStack()), source: 'local stack (stack/up.sh)' };
}

// --- 1. environment --------------------------------------------------------------------------

function endpointsFromEnv(): StackEndpoints | undefined {
  const { KAFKA_BROKERS, SCHEMA_REGISTRY_URL, REDIS_URL } = process.env;
  const given = [KAFKA_BROKERS, SCHEMA_REGISTRY_URL, REDIS_URL].filter((v) => v !== undefined && v !== '');
  if (given.length === 0) return undefined;
  if (!KAFKA_BROKERS || !SCHEMA_REGISTRY_URL || !REDIS_URL) {
    throw new Error(
      'set all of KAFKA_BROKERS, SCHEMA_REGISTRY_URL and REDIS_URL, or none of them ' +
        '(then the tests use testcontainers or the local stack)',
    );
  }
  return {
    kafkaBrokers: KAFKA_BROKERS,
    schemaRegistryUrl: SCHEMA_REGISTRY_URL,
    redisUrl: REDIS_URL,
    kafkaSecure: secureFrom(
      process.env,
      'set KAFKA_SECURE_BROKERS, KAFKA_SECURE_CA_FILE, KAFKA_SECURE_USERNAME and ' +
        'KAFKA_SECURE_PASSWORD_FILE along with KAFKA_BROKERS: the SASL_SSL listener that ' +
        'stack/up.sh starts and prints (or unset KAFKA_BROKERS, SCHEMA_REGISTRY_URL and REDIS_URL ' +
        'to let the tests start the local stack)',
    ),
  };
}

// --- 2. testcontainers -----------------------------------------------------------------------

type DockerTarget = { socketPath: string } | { host: string; port: number } | 'unchecked';

/**
 * Cheap Docker detection: no socket and no DOCKER_HOST costs a few stat calls, no network. An
 * engine behind TLS or ssh is 'unchecked': testcontainers deals with it.
 */
async function dockerTarget(): Promise<DockerTarget | undefined> {
  const host = process.env.DOCKER_HOST;
  if (host) {
    let target: DockerTarget = 'unchecked';
    if (host.startsWith('unix://')) target = { socketPath: host.slice('unix://'.length) };
    else if (host.startsWith('tcp://') && process.env.DOCKER_TLS_VERIFY !== '1') {
      const url = new URL(host.replace(/^tcp:/, 'http:'));
      target = { host: url.hostname, port: Number(url.port || 2375) };
    }
    if (target === 'unchecked') return target;
    return (await dockerApi(target, 'GET', '/_ping', 1_000))?.status === 200 ? target : undefined;
  }
  const sockets = [
    '/var/run/docker.sock',
    join(homedir(), '.docker/run/docker.sock'),
    process.env.XDG_RUNTIME_DIR ? join(process.env.XDG_RUNTIME_DIR, 'docker.sock') : undefined,
  ].filter((s): s is string => s !== undefined && existsSync(s));
  for (const socketPath of sockets) {
    if ((await dockerApi({ socketPath }, 'GET', '/_ping', 1_000))?.status === 200) return { socketPath };
  }
  return undefined;
}

/** One Docker Engine API call; undefined when the engine does not answer in time. */
function dockerApi(
  target: Exclude<DockerTarget, 'unchecked'>,
  method: string,
  path: string,
  timeoutMs: number,
): Promise<{ status: number; body: string } | undefined> {
  return new Promise((done) => {
    const req = request({ ...target, path, method, timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        done({ status: res.statusCode ?? 0, body });
      });
      res.on('error', () => {
        done(undefined);
      });
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => {
      done(undefined);
    });
    req.end();
  });
}

/**
 * The first of `images` that is neither in the engine nor pullable, said as a reason; undefined
 * when every one is there (pulling those that are not, as testcontainers would).
 */
async function missingImage(target: DockerTarget, images: readonly string[]): Promise<string | undefined> {
  if (target === 'unchecked') return undefined;
  for (const image of images) {
    const found = await dockerApi(target, 'GET', `/images/${encodeURIComponent(image)}/json`, 5_000);
    if (found?.status === 200) continue;
    const colon = image.lastIndexOf(':');
    const query = new URLSearchParams({ fromImage: image.slice(0, colon), tag: image.slice(colon + 1) });
    const pulled = await dockerApi(target, 'POST', `/images/create?${query.toString()}`, 300_000);
    // A failed pull may still answer 200, with the error in the progress stream.
    const error = pulled === undefined ? 'no answer' : pullError(pulled.status, pulled.body);
    if (error !== undefined) return `image ${image} is not present and cannot be pulled (${error})`;
  }
  return undefined;
}

function pullError(status: number, body: string): string | undefined {
  for (const line of body.split('\n')) {
    try {
      const event = JSON.parse(line) as { error?: unknown; message?: unknown };
      if (typeof event.error === 'string') return event.error.slice(0, 200);
      if (status !== 200 && typeof event.message === 'string') return event.message.slice(0, 200);
    } catch {
      // not a JSON line
    }
  }
  return status === 200 ? undefined : `HTTP ${status}`;
}

async function startContainers(): Promise<{ endpoints: StackEndpoints; teardown: Teardown }> {
  // Loaded only here: testcontainers pulls in a large dependency tree.
  const { GenericContainer, Wait } = await import('testcontainers');
  const secure = await containerSecrets();
  const keystore = '/tmp/broker-keystore.pem';

  const kafkaContainer = new GenericContainer(KAFKA_IMAGE)
    .withExposedPorts(9092, 9095)
    // SECURE (SASL_SSL with SCRAM), as stack/up.sh's: its certificate names localhost.
    .withCopyFilesToContainer([{ source: secure.keystore, target: keystore, mode: 0o444 }])
    // The broker settings stack/up.sh's nodes have too (stack/kafka-broker.properties), then the
    // container's own listeners.
    .withEnvironment(kafkaContainerEnvironment(keystore))
    // The advertised address needs the mapped port, known only once the container runs: the
    // entrypoint waits for it in /tmp/advertised before starting Kafka.
    .withEntrypoint([
      'sh',
      '-c',
      'echo "awaiting advertised listeners"; while [ ! -f /tmp/advertised ]; do sleep 0.1; done; ' +
        'export KAFKA_ADVERTISED_LISTENERS="$(cat /tmp/advertised)"; exec /etc/kafka/docker/run',
    ])
    .withWaitStrategy(Wait.forLogMessage('awaiting advertised listeners'))
    .withStartupTimeout(120_000);

  const registryContainer = new GenericContainer(REGISTRY_IMAGE)
    .withExposedPorts(8080)
    .withEnvironment({ JAVA_OPTS_APPEND: '-Xmx384m' })
    .withWaitStrategy(Wait.forHttp('/apis/ccompat/v7/subjects', 8080).forStatusCode(200))
    .withStartupTimeout(180_000);

  const redisContainer = new GenericContainer(REDIS_IMAGE)
    .withExposedPorts(6379)
    .withCommand(['redis-server', '--save', '', '--appendonly', 'no'])
    .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'));

  const [kafka, registry, redis] = await Promise.all([
    kafkaContainer.start(),
    registryContainer.start(),
    redisContainer.start(),
  ]);
  const teardown: Teardown = async () => {
    await Promise.allSettled([kafka.stop(), registry.stop(), redis.stop()]);
    rmSync(secure.dir, { recursive: true, force: true });
  };
  try {
    const kafkaBrokers = `${kafka.getHost()}:${kafka.getMappedPort(9092)}`;
    const secureBrokers = `${kafka.getHost()}:${kafka.getMappedPort(9095)}`;
    const advertised = `PLAINTEXT://${kafkaBrokers},BROKER://localhost:9094,SECURE://${secureBrokers}`;
    await kafka.exec([
      'sh',
      '-c',
      `printf %s '${advertised}' > /tmp/adv.tmp && mv /tmp/adv.tmp /tmp/advertised`,
    ]);
    // Ready = a metadata round trip succeeds.
    await untilAdminAnswers(kafkaBrokers, 500, (admin) => admin.listTopics());
    // The SCRAM user, through the broker's own listener (KRaft keeps it in the metadata log).
    const password = readFileSync(secure.passwordFile, 'utf8').trim();
    // One mechanism per call: the broker refuses two changes to one user in one request.
    for (const mechanism of ['SCRAM-SHA-512', 'SCRAM-SHA-256']) {
      const scram = await kafka.exec([
        '/opt/kafka/bin/kafka-configs.sh',
        '--bootstrap-server',
        'localhost:9094',
        '--alter',
        '--entity-type',
        'users',
        '--entity-name',
        secure.username,
        '--add-config',
        `${mechanism}=[password=${password}]`,
      ]);
      if (scram.exitCode !== 0) {
        const reason = scram.output.split('\n').find((line) => /Exception/.test(line)) ?? '';
        throw new Error(`kafka-configs could not add the ${mechanism} user: ${reason}`);
      }
    }
    return {
      endpoints: {
        kafkaBrokers,
        schemaRegistryUrl: `http://${registry.getHost()}:${registry.getMappedPort(8080)}/apis/ccompat/v7`,
        redisUrl: `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`,
        kafkaSecure: {
          brokers: secureBrokers,
          caFile: secure.caFile,
          username: secure.username,
          passwordFile: secure.passwordFile,
        },
      },
      teardown,
    };
  } catch (err) {
    await teardown();
    throw err;
  }
}

/**
 * A CA, the broker's PEM keystore and a SCRAM password for the Kafka container, made by
 * stack/secure.sh's own functions in a directory of this run.
 */
async function containerSecrets(): Promise<{
  dir: string;
  keystore: string;
  caFile: string;
  passwordFile: string;
  username: string;
}> {
  mkdirSync(STACK_DIR, { recursive: true });
  const dir = mkdtempSync(join(STACK_DIR, 'containers-'));
  await new Promise<void>((done, fail) => {
    const child = spawn(
      'bash',
      [
        '-c',
        'source stack/lib.sh && source stack/secure.sh && mkdir -p "$LOG_DIR" && ' +
          'secure_password >/dev/null && secure_certificates && echo "$KAFKA_SCRAM_USER" >"$SECURE_DIR/user"',
      ],
      { cwd: ROOT, env: { ...process.env, STACK_DIR: dir }, stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.on('error', fail);
    child.on('close', (code) => {
      if (code === 0) done();
      else fail(new Error(`could not make the Kafka container's certificates (exit ${code})`));
    });
  });
  const secure = join(dir, 'secure');
  return {
    dir,
    keystore: join(secure, 'broker-keystore.pem'),
    caFile: join(secure, 'ca.pem'),
    passwordFile: join(secure, 'client.password'),
    username: readFileSync(join(secure, 'user'), 'utf8').trim(),
  };
}

// --- 3. local stack --------------------------------------------------------------------------

const SERVICES = ['kafka', 'registry', 'redis'] as const;

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function stackRunning(): boolean {
  return SERVICES.every((name) => {
    try {
      return pidAlive(Number(readFileSync(join(RUN_DIR, `${name}.pid`), 'utf8').trim()));
    } catch {
      return false;
    }
  });
}

function runScript(script: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('bash', [join(ROOT, 'stack', script)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', fail);
    child.on('close', (code) => {
      if (code === 0) done(out);
      else fail(new Error(`stack/${script} exited with code ${code}; logs in ${join(STACK_DIR, 'logs')}`));
    });
  });
}

async function startLocalStack(): Promise<{ endpoints: StackEndpoints; teardown?: Teardown }> {
  const wasRunning = stackRunning();
  // A lease per test run: whoever started the stack stops it only when no other run holds one.
  mkdirSync(LEASE_DIR, { recursive: true });
  const lease = join(LEASE_DIR, String(process.pid));
  writeFileSync(lease, '');

  let out: string;
  try {
    out = await runScript('up.sh');
  } catch (err) {
    rmSync(lease, { force: true });
    throw err;
  }
  const vars = new Map<string, string>();
  for (const line of out.split('\n')) {
    const m = /^([A-Z_]+)=(.*)$/.exec(line.trim());
    if (m) vars.set(m[1]!, m[2]!);
  }
  const kafkaBrokers = vars.get('KAFKA_BROKERS');
  const schemaRegistryUrl = vars.get('SCHEMA_REGISTRY_URL');
  const redisUrl = vars.get('REDIS_URL');
  if (!kafkaBrokers || !schemaRegistryUrl || !redisUrl) {
    rmSync(lease, { force: true });
    throw new Error(`stack/up.sh did not print the endpoints:\n${out}`);
  }

  const teardown: Teardown = async () => {
    rmSync(lease, { force: true });
    if (wasRunning || process.env.STACK_KEEP_RUNNING === '1') return;
    const others = readdirSync(LEASE_DIR).filter((name) => {
      const alive = /^\d+$/.test(name) && pidAlive(Number(name));
      if (!alive) rmSync(join(LEASE_DIR, name), { force: true });
      return alive;
    });
    if (others.length > 0) {
      console.log(`[global-setup] leaving the stack running for test runs ${others.join(', ')}`);
      return;
    }
    await runScript('down.sh');
  };
  const kafkaSecure = secureFrom(
    Object.fromEntries(vars),
    'the running local stack has no SASL_SSL listener (its Kafka was started by an older ' +
      'stack/up.sh): restart it with npm run stack:down && npm run stack:up',
  );
  return { endpoints: { kafkaBrokers, schemaRegistryUrl, redisUrl, kafkaSecure }, teardown };
}
