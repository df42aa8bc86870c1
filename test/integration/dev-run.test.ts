/**
 * The development run (`dev --exit-after-demo`, what `npm run dev -- --exit-after-demo` runs
 * after starting the stack): human-readable lines, and a healthy start prints none at warn
 * level or above.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { OPERATIONS } from '../../src/contract/operations.js';
import { testPrefix } from '../helpers/service.js';

const run = promisify(execFile);

/**
 * The command, ahead of the machine's other work where the test may say so (root, as CI runs).
 * What this test asserts is the service's own start: on a machine whose cores other processes
 * keep busy (CI's parallel test files, a second CI beside it), the dev process got a third of a
 * core and its limiter rightly warned that calls started late, a warning about the machine.
 */
function ahead(command: string[]): [string, string[]] {
  const [file = '', ...args] = command;
  return process.getuid?.() === 0 ? ['nice', ['-n', '-10', file, ...args]] : [file, args];
}

describe('npm run dev -- --exit-after-demo', () => {
  it('answers every demo request and prints no line at warn level or above', async () => {
    const prefix = testPrefix('dev');
    const [file, args] = ahead(['npx', 'tsx', 'src/cli.ts', 'dev', '--exit-after-demo']);
    const { stdout, stderr } = await run(file, args, {
      env: {
        ...process.env,
        KAFKA_BROKERS: inject('kafkaBrokers'),
        SCHEMA_REGISTRY_URL: inject('schemaRegistryUrl'),
        REDIS_URL: inject('redisUrl'),
        TOPIC_PREFIX: prefix,
        KAFKA_GROUP_ID: `${prefix}.service`,
        HTTP_PORT: '0',
        ADMIN_PORT: '0',
        LOG_LEVEL: 'info',
        NODE_ENV: 'development',
      },
      timeout: 120_000,
    });
    const lines = `${stdout}\n${stderr}`.split('\n').filter((line) => !line.startsWith('npm warn'));
    expect(lines.some((line) => / INFO: service started/.test(line))).toBe(true);
    expect(lines.filter((line) => /\b(WARN|ERROR|FATAL):/.test(line))).toEqual([]);
    // Human-readable, not JSON.
    expect(lines.some((line) => line.startsWith('{"level"'))).toBe(false);
    // Exits 0 only when every demo request has its final outcome; each has an outcome line.
    expect(stdout).not.toContain('still waiting for');
    for (const operation of OPERATIONS) expect(stdout).toMatch(new RegExp(`← \\S+ +demo-\\S+-${operation} `));
    expect(stdout).toMatch(/demo: \d+ outcomes received/);
  });
});
