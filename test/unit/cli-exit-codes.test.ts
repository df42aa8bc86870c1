import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

/** The command line as a user runs it: its exit code and what it printed on stderr. */
function cli(...args: string[]): { code: number | null; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], {
    encoding: 'utf8',
    // Nothing to connect to: a command that got past its flags would exit 78 or 5, not 2.
    env: { PATH: process.env.PATH ?? '' },
    timeout: 30_000,
  });
  return { code: run.status, stderr: run.stderr };
}

describe('exit codes of the command line', () => {
  it("exits 2 on flags commander itself refuses, as on every other bad flag, with commander's line", () => {
    expect(cli('replay', '--no-such-flag')).toEqual({
      code: 2,
      stderr: "error: unknown option '--no-such-flag'\n",
    });
    expect(cli('redrive', '--from')).toEqual({
      code: 2,
      stderr: "error: option '--from <time>' argument missing\n",
    });
    expect(cli('no-such-command').code).toBe(2);
  }, 60_000);

  it('exits 0 after the help it was asked for', () => {
    const help = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'replay', '--help'], {
      encoding: 'utf8',
    });
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--from <time>');
  }, 30_000);
});
