import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerAuditCommands } from '../../../src/audit/commands.js';

/** Brokers on a port nothing listens on: a command that tried to connect would exit 5. */
async function run(line: string, env: NodeJS.ProcessEnv = { KAFKA_BROKERS: '127.0.0.1:9' }) {
  const stderr = new PassThrough();
  const text: Buffer[] = [];
  stderr.on('data', (c: Buffer) => text.push(c));
  let code = 0;
  const program = new Command('test').exitOverride();
  registerAuditCommands(program, {
    stdout: new PassThrough(),
    stderr,
    env,
    setExitCode: (c) => (code = c),
    onInterrupt: () => () => undefined,
  });
  await program.parseAsync(['node', 'cli', ...line.split(' ')]);
  return { code, stderr: Buffer.concat(text).toString() };
}

describe('audit commands', () => {
  it('refuse bad flags with one line and exit code 2, before connecting', async () => {
    const cases: [string, RegExp][] = [
      ['replay --kind results --from 2026-11-21T10:00:00Z --to 2026-11-21T09:00:00Z', /window is reversed/],
      ['replay --kind results --from 2026-11-21T10:00:00Z --to 2026-11-21T10:00:00Z', /window is empty/],
      ['replay --kind results --from 2026-11-21T10:00', /--from must be an ISO 8601 time with a zone/],
      ['replay --kind results --operation vehicles', /--operation vehicles is not one of/],
      ['replay --kind result', /--kind result is not one of/],
      ['replay --from 2026-11-21', /choose what to read/],
      ['replay --kind results --out x.jsonl --to-topic y', /either --out or --to-topic/],
      ['redrive --from 2026-11-21 --partition 0', /either a time window/],
      ['redrive --error-kind oops', /--error-kind oops/],
    ];
    for (const [line, message] of cases) {
      const result = await run(line);
      expect(result.code, line).toBe(2);
      expect(result.stderr, line).toMatch(new RegExp(`^${line.split(' ')[0] ?? ''}: .*\\n$`));
      expect(result.stderr, line).toMatch(message);
    }
  });

  it('names a missing or bad setting', async () => {
    expect(await run('replay --kind results', {})).toEqual({
      code: 78,
      stderr: expect.stringMatching(/^replay: configuration error: KAFKA_BROKERS: is required/) as string,
    });
    expect((await run('replay --kind results --brokers nohost')).stderr).toMatch(
      /KAFKA_BROKERS: .*host:port/,
    );
  });
});
