import { strongSecret } from './config-fields.js';
import { ACTOR_PATTERN } from './contract/audit-events.js';
import { ConfigError } from './errors.js';

export type ConsoleRole = 'read-only' | 'operator';

/** One operator's token: its name is what audit events record, never the token. */
export interface NamedToken {
  name: string;
  role: ConsoleRole;
  token: string;
}

/**
 * The console's tokens, each with the name audit events record; the console is off when there
 * are none. CONSOLE_TOKEN and CONSOLE_OPERATOR_TOKEN (shared by everyone who holds them) are
 * named `shared-read-only` and `shared-operator`; CONSOLE_TOKENS gives each operator their own.
 */
export interface ConsoleTokens {
  tokens: readonly NamedToken[];
  /**
   * CONSOLE_REQUIRE_NAMED_TOKENS: the shared tokens are refused at login (and their sessions
   * no longer open), so that every audit event names a person. Absent: off.
   */
  namedOnly?: boolean;
}

export type TokenSettings =
  'CONSOLE_TOKEN' | 'CONSOLE_OPERATOR_TOKEN' | 'CONSOLE_TOKENS' | 'CONSOLE_REQUIRE_NAMED_TOKENS';

export const SHARED_READ_ONLY = 'shared-read-only';
export const SHARED_OPERATOR = 'shared-operator';

/** True for the names of CONSOLE_TOKEN and CONSOLE_OPERATOR_TOKEN, which name nobody. */
export function isSharedName(name: string): boolean {
  return name === SHARED_READ_ONLY || name === SHARED_OPERATOR;
}

/**
 * The tokens, each given in its variable or, through withSecretFiles, in `<NAME>_FILE`. The
 * operator token needs a read-only one and must differ from it; CONSOLE_TOKENS(_FILE) holds
 * `name:role:token` lines (role `read-only` or `operator`; blank lines and `#` comments
 * skipped), names and tokens each used once.
 */
export function readConsoleTokens(
  env: Readonly<Record<Exclude<TokenSettings, 'CONSOLE_REQUIRE_NAMED_TOKENS'>, string | undefined>> & {
    CONSOLE_REQUIRE_NAMED_TOKENS?: boolean;
  },
  setting: (name: TokenSettings) => string = (name) => name,
): Readonly<ConsoleTokens> | undefined {
  const readOnly = env.CONSOLE_TOKEN;
  const operator = env.CONSOLE_OPERATOR_TOKEN;
  const tokens: NamedToken[] = [];
  if (readOnly === undefined) {
    if (operator !== undefined)
      throw new ConfigError('CONSOLE_TOKEN', 'is required with CONSOLE_OPERATOR_TOKEN');
  } else {
    if (operator === readOnly) {
      throw new ConfigError(
        'CONSOLE_OPERATOR_TOKEN',
        'must differ from CONSOLE_TOKEN (they grant different roles)',
      );
    }
    tokens.push({ name: SHARED_READ_ONLY, role: 'read-only', token: readOnly });
    if (operator !== undefined) tokens.push({ name: SHARED_OPERATOR, role: 'operator', token: operator });
  }
  if (env.CONSOLE_TOKENS !== undefined)
    tokens.push(...parseNamedTokens(env.CONSOLE_TOKENS, setting('CONSOLE_TOKENS')));
  checkUnique(tokens, setting('CONSOLE_TOKENS'));
  if (tokens.length === 0) return undefined;
  if (env.CONSOLE_REQUIRE_NAMED_TOKENS !== true) return Object.freeze({ tokens: Object.freeze(tokens) });
  if (env.CONSOLE_TOKENS === undefined)
    throw new ConfigError(
      'CONSOLE_REQUIRE_NAMED_TOKENS',
      'needs CONSOLE_TOKENS (one name:role:token line per operator): the shared tokens alone would let nobody in',
    );
  return Object.freeze({ tokens: Object.freeze(tokens), namedOnly: true });
}

function parseNamedTokens(text: string, setting: string): NamedToken[] {
  const tokens: NamedToken[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    // Never the line itself in a message: it holds a token.
    const where = `line ${String(index + 1)}`;
    const [name, role, ...rest] = line.split(':');
    const token = rest.join(':');
    if (name === undefined || role === undefined || rest.length === 0) {
      throw new ConfigError(setting, `${where}: expected name:role:token`);
    }
    if (!ACTOR_PATTERN.test(name)) {
      throw new ConfigError(
        setting,
        `${where}: a name is letters, digits, '.', '_', '@' or '-' (64 at most)`,
      );
    }
    if (role !== 'read-only' && role !== 'operator') {
      throw new ConfigError(setting, `${where}: the role is read-only or operator`);
    }
    const checked = strongSecret.safeParse(token);
    if (!checked.success) {
      throw new ConfigError(
        setting,
        `${where}: the token ${checked.error.issues[0]?.message ?? 'is invalid'}`,
      );
    }
    tokens.push({ name, role, token });
  });
  if (tokens.length === 0) throw new ConfigError(setting, 'holds no token');
  return tokens;
}

function checkUnique(tokens: readonly NamedToken[], setting: string): void {
  const names = new Set<string>();
  const secrets = new Set<string>();
  for (const { name, token } of tokens) {
    if (names.has(name)) throw new ConfigError(setting, `the name ${name} is given twice`);
    if (secrets.has(token))
      throw new ConfigError(setting, `the token of ${name} is given to another name too`);
    names.add(name);
    secrets.add(token);
  }
}
