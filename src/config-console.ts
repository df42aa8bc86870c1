import { ConfigError } from './errors.js';

/** The console's tokens; the console is off when absent. */
export interface ConsoleTokens {
  readOnly: string;
  operator?: string;
}

export type TokenSettings = 'CONSOLE_TOKEN' | 'CONSOLE_OPERATOR_TOKEN';

/**
 * The tokens, each given in its variable or, through withSecretFiles, in `<NAME>_FILE`; the
 * operator token needs a read-only one and must differ from it.
 */
export function readConsoleTokens(
  env: Readonly<Record<TokenSettings, string | undefined>>,
): Readonly<ConsoleTokens> | undefined {
  const readOnly = env.CONSOLE_TOKEN;
  const operator = env.CONSOLE_OPERATOR_TOKEN;
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
