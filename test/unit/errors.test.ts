import { describe, expect, it } from 'vitest';
import { AuditError } from '../../src/audit/errors.js';
import { CommandError, ConfigError } from '../../src/errors.js';

describe('command errors', () => {
  it('a bad setting ends the command with exit code 78 and a line naming the setting', () => {
    const error: CommandError = new ConfigError('VENDOR_BASE_URL', 'is required');
    expect(error).toBeInstanceOf(CommandError);
    expect(error.exitCode).toBe(78);
    expect(error.describe()).toBe('configuration error: VENDOR_BASE_URL: is required');
  });

  it('an audit failure ends the command with its own exit code and its message alone', () => {
    const error: CommandError = new AuditError('UNKNOWN_TOPIC', 'no topic x');
    expect(error).toBeInstanceOf(CommandError);
    expect(error.exitCode).toBe(3);
    expect(error.describe()).toBe('no topic x');
  });
});
