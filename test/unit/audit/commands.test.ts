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

  it('AUDIT_REQUIRE_NAMED_ACTOR: a read or a redrive needs a name given, never the user nor a shared name (issue 50)', async () => {
    // Nothing listens on port 9: a command that got past the actor gives up there, soon.
    const required = {
      KAFKA_BROKERS: '127.0.0.1:9',
      AUDIT_CONNECT_TIMEOUT_MS: '200',
      AUDIT_REQUIRE_NAMED_ACTOR: 'true',
    };
    for (const line of [
      'replay --kind results',
      'redrive --dry-run --show-keys',
      'erase --tax-id 52998224725',
    ]) {
      const command = line.split(' ')[0] ?? '';
      expect(await run(line, required), line).toEqual({
        code: 2,
        stderr: `${command}: named actors are required (AUDIT_REQUIRE_NAMED_ACTOR): give --actor <your name>\n`,
      });
      expect(await run(`${line} --actor shared-operator`, required), line).toEqual({
        code: 2,
        stderr: `${command}: named actors are required (AUDIT_REQUIRE_NAMED_ACTOR): shared-operator names nobody; give --actor <your name>\n`,
      });
    }
    // A name given, by the flag or AUDIT_ACTOR: on to connecting (exit 5).
    expect((await run('replay --kind results --actor maria.souza', required)).code).toBe(5);
    expect((await run('redrive --show-keys', { ...required, AUDIT_ACTOR: 'maria.souza' })).code).toBe(5);
    // Off (false, or not set): the user running the command names the actor.
    expect((await run('replay --kind results', { ...required, AUDIT_REQUIRE_NAMED_ACTOR: '' })).code).toBe(5);
    expect(
      (await run('replay --kind results', { ...required, AUDIT_REQUIRE_NAMED_ACTOR: 'false' })).code,
    ).toBe(5);
    expect(await run('replay --kind results', { ...required, AUDIT_REQUIRE_NAMED_ACTOR: 'yes' })).toEqual({
      code: 78,
      stderr: 'replay: configuration error: AUDIT_REQUIRE_NAMED_ACTOR: must be true or false\n',
    });
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
