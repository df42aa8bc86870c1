/**
 * Kafka's own command-line tools, run from the jars stack/fetch.sh puts in .stack/kafka/libs
 * (fetched first when missing), for what the client cannot ask: a topic's configuration
 * (Confluent's client has no DescribeConfigs).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const LIBS = join(ROOT, '.stack', 'kafka', 'libs');

async function kafkaLibs(): Promise<string> {
  if (!existsSync(LIBS))
    await run('bash', [join(ROOT, 'stack', 'fetch.sh')], { cwd: ROOT, timeout: 600_000 });
  return join(LIBS, '*');
}

/** The topic's dynamic configuration (what was set on it), as kafka-configs.sh --describe shows it. */
export async function topicConfigs(brokers: string, topic: string): Promise<Record<string, string>> {
  const { stdout } = await run(
    'java',
    [
      '-XX:TieredStopAtLevel=1',
      '-cp',
      await kafkaLibs(),
      'kafka.admin.ConfigCommand',
      '--bootstrap-server',
      brokers,
      '--entity-type',
      'topics',
      '--entity-name',
      topic,
      '--describe',
    ],
    { timeout: 120_000 },
  );
  return Object.fromEntries(
    [...stdout.matchAll(/^\s+([\w.]+)=(\S+) sensitive=/gm)].map(([, name = '', value = '']) => [name, value]),
  );
}
