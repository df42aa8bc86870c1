/**
 * How long the console's pages take to load over a window of 10,000 dead letters: the status
 * page and a dead-letter page (first load, which reads the window, then a cached next page).
 * Needs the stack (KAFKA_BROKERS, SCHEMA_REGISTRY_URL, REDIS_URL); run once by hand:
 * `npx tsx bench/console-load.ts`.
 */
import { pino } from 'pino';
import { loadConfig } from '../src/config.js';
import { topicNames } from '../src/contract/operations.js';
import { createKafka } from '../src/kafka/client.js';
import { startService } from '../src/main.js';
import { createSandbox, cpfFor } from '../src/sandbox/index.js';

const COUNT = 10_000;
const TOKEN = 'bench-console-token-0123';
const prefix = `bench.console.${Date.now().toString(36)}`;
const env = process.env;
const sandbox = await createSandbox({ apiKey: 'bench-key' });
const config = loadConfig({
  ...env,
  VENDOR_BASE_URL: sandbox.url,
  VENDOR_API_KEY: 'bench-key',
  TOPIC_PREFIX: prefix,
  KAFKA_GROUP_ID: `${prefix}.service`,
  HTTP_HOST: '127.0.0.1',
  HTTP_PORT: '0',
  ADMIN_HOST: '127.0.0.1',
  ADMIN_PORT: '0',
  CONSOLE_TOKEN: TOKEN,
  LOG_LEVEL: 'silent',
});
const service = await startService(config, pino({ level: 'silent' }));
const names = topicNames(prefix);
const kafka = createKafka({ brokers: config.KAFKA_BROKERS });
const producer = kafka.producer();
await producer.connect();
const from = new Date(Date.now() - 1000).toISOString();
for (let i = 0; i < COUNT; i += 1000) {
  await producer.send({
    topic: names.errors,
    messages: Array.from({ length: 1000 }, (_, j) => {
      const taxId = cpfFor('happy', i + j);
      return {
        key: taxId,
        value: JSON.stringify({
          requestId: `bench-${i + j}`,
          operation: 'lawsuits-summary',
          attempts: 1,
          failedAt: new Date().toISOString(),
          error: { kind: 'upstream_unavailable', message: 'vendor answered 503', retryable: true },
          request: { requestId: `bench-${i + j}`, params: { taxId } },
          origin: { topic: names.request('lawsuits-summary'), partition: 0, offset: String(i + j) },
        }),
      };
    }),
  });
}
await producer.disconnect();
const base = `http://127.0.0.1:${String(service.adminPort)}/console`;
const login = await fetch(`${base}/login`, {
  method: 'POST',
  redirect: 'manual',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: `token=${TOKEN}`,
});
const cookie = login.headers
  .getSetCookie()
  .map((c) => c.split(';')[0])
  .join('; ');
const time = async (label: string, path: string): Promise<void> => {
  const started = performance.now();
  const response = await fetch(`${base}${path}`, { headers: { cookie } });
  const body = await response.text();
  const ms = performance.now() - started;
  const total = /<span id="total">(\d+)</.exec(body)?.[1];
  console.log(
    `${label}: ${ms.toFixed(0)} ms (HTTP ${response.status}, ${body.length} bytes${total ? `, ${total} dead letters` : ''})`,
  );
};
const to = new Date().toISOString();
const window = `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;
for (let run = 1; run <= 3; run += 1) await time(`status, run ${run}`, '/status');
await time('dead letters, first page (reads the window)', `/dead-letters?${window}`);
await time('dead letters, page 2 (cached window)', `/dead-letters?${window}&page=2`);
await time(
  'dead letters, filtered by requestId (reads the window)',
  `/dead-letters?${window}&requestId=bench-9999`,
);
await time('one dead letter', '/dead-letters/0/5');
await service.stop();
await sandbox.close();
