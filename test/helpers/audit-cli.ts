import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { registerAuditCommands, type AuditIo } from '../../src/audit/commands.js';

export interface AuditCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs an audit command (replay, redrive, erase) in-process, as `cli.ts` would, with its own
 * stdout and stderr and the given environment; resolves with its exit code and output.
 */
export async function runAuditCli(
  args: readonly string[],
  env: Record<string, string>,
  extra: Partial<AuditIo> = {},
): Promise<AuditCliRun> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  let code = 0;
  const program = new Command('test').exitOverride();
  registerAuditCommands(program, {
    stdout,
    stderr,
    env,
    setExitCode: (c) => (code = c),
    onInterrupt: () => () => undefined,
    ...extra,
  });
  await program.parseAsync(['node', 'cli', ...args]);
  return { code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() };
}
