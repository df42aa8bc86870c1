/**
 * The demo of `npm run dev` against a service that already runs (compose.yaml's `demo`): one
 * request per operation to the request topics, then each outcome as it arrives, as a
 * read_committed reader. Settings: KAFKA_BROKERS, SCHEMA_REGISTRY_URL (optional), TOPIC_PREFIX
 * (default verification), DEMO_TIMEOUT_MS (default 60000). Exits 1 when an outcome is missing.
 *
 *   docker compose run --rm demo        # or: npx tsx scripts/demo.ts, with the settings above
 */
import { createKafka } from '../src/kafka/client.js';
import { topicNames } from '../src/contract/operations.js';
import { runDemo } from '../src/demo/demo.js';
import { createRegistryClient } from '../src/producers/registry-client.js';
import { plainJsonCodec, registryCodec } from '../src/producers/value-codec.js';

const env = process.env;
const brokers = (env.KAFKA_BROKERS ?? '').split(',').filter((b) => b !== '');
if (brokers.length === 0) {
  console.error('KAFKA_BROKERS is required (host:port[,host:port])');
  process.exit(78);
}
const timeoutMs = Number(env.DEMO_TIMEOUT_MS ?? '60000');
if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) {
  console.error('DEMO_TIMEOUT_MS must be a positive whole number of milliseconds');
  process.exit(78);
}
const write = (line: string): void => void process.stdout.write(`${line}\n`);
const started = Date.now();
const { outcomes, expected, unanswered } = await runDemo({
  kafka: createKafka({ clientId: 'demo', brokers }),
  topics: topicNames(env.TOPIC_PREFIX ?? 'verification'),
  codec: env.SCHEMA_REGISTRY_URL
    ? registryCodec(createRegistryClient(env.SCHEMA_REGISTRY_URL), new Map())
    : plainJsonCodec(),
  write,
  timeoutMs,
});
write(`demo: ${outcomes} outcomes for ${expected} requests in ${Date.now() - started} ms`);
process.exit(unanswered === 0 ? 0 : 1);
