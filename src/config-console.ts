import { readFileSync } from 'node:fs';
import { ConfigError } from './errors.js';

/** The console's tokens; the console is off when absent. */
export interface ConsoleTokens {
  readOnly: string;
  operator?: string;
}

export type TokenSettings =
  'CONSOLE_TOKEN' | 'CONSOLE_TOKEN_FILE' | 'CONSOLE_OPERATOR_TOKEN' | 'CONSOLE_OPERATOR_TOKEN_FILE';

/**
 * The console's tokens, each from its variable or its file (not both); the operator token
 * needs a read-only one and must differ from it.
 */
export function readConsoleTokens(
  env: Readonly<Record<TokenSettings, string | undefined>>,
): Readonly<ConsoleTokens> | undefined {
  const readOnly = tokenOf('CONSOLE_TOKEN', env.CONSOLE_TOKEN, env.CONSOLE_TOKEN_FILE);
  const operator = tokenOf(
    'CONSOLE_OPERATOR_TOKEN',
    env.CONSOLE_OPERATOR_TOKEN,
    env.CONSOLE_OPERATOR_TOKEN_FILE,
  );
  if (readOnly === undefined) {
    if (operator !== undefined)
      throw new ConfigError('CONSOLE_TOKEN', 'is required with CONSOLE_OPERATOR_TOKEN');
    return undefined;
  }
  if (operator === readOnly) {
    throw new ConfigError(
      'CONSOLE_OPERATOR_TOKEN',
      'must differ from CONSOLE_TOKEN (they grant different roles)',
    );
  }
  return Object.freeze(operator === undefined ? { readOnly } : { readOnly, operator });
}

function tokenOf(setting: string, value: string | undefined, file: string | undefined): string | undefined {
  if (value !== undefined && file !== undefined) {
    throw new ConfigError(setting, `set either ${setting} or ${setting}_FILE, not both`);
  }
  if (file === undefined) return value;
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (error) {
    throw new ConfigError(
      `${setting}_FILE`,
      `cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
  if (text.length < 16)
    throw new ConfigError(`${setting}_FILE`, 'must hold a token of at least 16 characters');
  return text;
}
