import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', '..', 'src', 'cli.ts');

/**
 * Ends only a hung command: tsx compiles the command line at each start, seconds on an idle
 * machine and over 30 s with both cores busy (it was killed there, status null).
 */
const HUNG_MS = 100_000;

/** The command line as a user runs it: its exit code and what it printed on stderr. */
function cli(...args: string[]): { code: number | null; stderr: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', CLI, ...args], {
    encoding: 'utf8',
    // Nothing to connect to: a command that got past its flags would exit 78 or 5, not 2.
    env: { PATH: process.env.PATH ?? '' },
    timeout: HUNG_MS,
  });
  return { code: run.status, stderr: run.stderr };
}

describe('exit codes of the command line', () => {
  it(
    "exits 2 on flags commander itself refuses, as on every other bad flag, with commander's line",
    () => {
      expect(cli('replay', '--no-such-flag')).toEqual({
        code: 2,
        stderr: "error: unknown option '--no-such-flag'\n",
      });
      expect(cli('redrive', '--from')).toEqual({
        code: 2,
        stderr: "error: option '--from <time>' argument missing\n",
      });
      expect(cli('no-such-command').code).toBe(2);
    },
    3 * HUNG_MS,
  );

  it(
    'exits 0 after the help it was asked for',
    () => {
      const help = spawnSync(process.execPath, ['--import', 'tsx', CLI, 'replay', '--help'], {
        encoding: 'utf8',
        timeout: HUNG_MS,
      });
      expect(help.status).toBe(0);
      expect(help.stdout).toContain('--from <time>');
    },
    HUNG_MS,
  );
});
