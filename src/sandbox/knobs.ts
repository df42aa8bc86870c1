import { z } from 'zod';

export const ERROR_KINDS = ['5xx', 'timeout', 'reset'] as const;
export type FaultKind = (typeof ERROR_KINDS)[number];
export const LATENCY_DISTRIBUTIONS = ['uniform', 'normal'] as const;
export type LatencyDistribution = (typeof LATENCY_DISTRIBUTIONS)[number];

/**
 * Run-time behaviour of the sandbox. The object returned by createSandbox is live: the hot path
 * reads it on every request, so assigning a member takes effect at once.
 */
export interface SandboxKnobs {
  /** Mean added latency per call (ms). 0 with jitter 0 skips the timer entirely. */
  latencyMeanMs: number;
  /** Uniform: mean ± jitter. Normal: jitter is the standard deviation. Clamped at 0. */
  latencyJitterMs: number;
  latencyDistribution: LatencyDistribution;
  /** Probability (0..1) that a call gets the fault of `errorKind` instead of its answer. */
  errorRate: number;
  /** '5xx': answer `errorStatus`; 'timeout': hold `timeoutHoldMs` then 504; 'reset': destroy the socket. */
  errorKind: FaultKind;
  errorStatus: number;
  timeoutHoldMs: number;
  /** Calls accepted per one-second window; above it 429 with Retry-After. 0 = unlimited. */
  rateLimitPerSecond: number;
  /** Time an async vehicle search stays `pending`. */
  asyncDelayMs: number;
  /** Probability (0..1) or true/false that a finished search's webhook is never sent. */
  webhookDrop: number | boolean;
  /** Send every webhook twice (at-least-once delivery). */
  webhookDuplicates: boolean;
  /** Further attempts after a failed webhook call (non-2xx or network error). */
  webhookRetries: number;
  /** Backoff before retry n is webhookBackoffMs * 2^(n-1). */
  webhookBackoffMs: number;
  webhookTimeoutMs: number;
}

export const DEFAULT_KNOBS: Readonly<SandboxKnobs> = Object.freeze({
  latencyMeanMs: 0,
  latencyJitterMs: 0,
  latencyDistribution: 'uniform',
  errorRate: 0,
  errorKind: '5xx',
  errorStatus: 500,
  timeoutHoldMs: 30_000,
  rateLimitPerSecond: 0,
  asyncDelayMs: 1_000,
  webhookDrop: false,
  webhookDuplicates: false,
  webhookRetries: 3,
  webhookBackoffMs: 200,
  webhookTimeoutMs: 5_000,
});

const ms = z.number().min(0).max(3_600_000);

export const knobsPatchSchema = z
  .object({
    latencyMeanMs: ms,
    latencyJitterMs: ms,
    latencyDistribution: z.enum(LATENCY_DISTRIBUTIONS),
    errorRate: z.number().min(0).max(1),
    errorKind: z.enum(ERROR_KINDS),
    errorStatus: z.number().int().min(500).max(599),
    timeoutHoldMs: ms,
    rateLimitPerSecond: z.number().int().min(0),
    asyncDelayMs: ms,
    webhookDrop: z.union([z.boolean(), z.number().min(0).max(1)]),
    webhookDuplicates: z.boolean(),
    webhookRetries: z.number().int().min(0).max(20),
    webhookBackoffMs: ms,
    webhookTimeoutMs: ms,
  })
  .partial()
  .strict();

export type KnobsPatch = z.infer<typeof knobsPatchSchema>;

/** Validates a patch; throws a message naming the bad knob. */
export function parseKnobsPatch(input: unknown): KnobsPatch {
  const result = knobsPatchSchema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.join('.') ?? '';
    throw new Error(`invalid knobs${where ? ` (${where})` : ''}: ${issue?.message ?? 'invalid'}`);
  }
  return result.data;
}

export function applyKnobs(target: SandboxKnobs, patch: KnobsPatch): SandboxKnobs {
  Object.assign(target, patch);
  return target;
}

/** Environment variable of each knob: SANDBOX_ + the knob name in upper snake case. */
export const KNOB_ENV: Readonly<Record<keyof SandboxKnobs, string>> = {
  latencyMeanMs: 'SANDBOX_LATENCY_MS',
  latencyJitterMs: 'SANDBOX_LATENCY_JITTER_MS',
  latencyDistribution: 'SANDBOX_LATENCY_DISTRIBUTION',
  errorRate: 'SANDBOX_ERROR_RATE',
  errorKind: 'SANDBOX_ERROR_KIND',
  errorStatus: 'SANDBOX_ERROR_STATUS',
  timeoutHoldMs: 'SANDBOX_TIMEOUT_HOLD_MS',
  rateLimitPerSecond: 'SANDBOX_RATE_LIMIT_PER_SECOND',
  asyncDelayMs: 'SANDBOX_ASYNC_DELAY_MS',
  webhookDrop: 'SANDBOX_WEBHOOK_DROP',
  webhookDuplicates: 'SANDBOX_WEBHOOK_DUPLICATES',
  webhookRetries: 'SANDBOX_WEBHOOK_RETRIES',
  webhookBackoffMs: 'SANDBOX_WEBHOOK_BACKOFF_MS',
  webhookTimeoutMs: 'SANDBOX_WEBHOOK_TIMEOUT_MS',
};

function envValue(raw: string): unknown {
  const text = raw.trim();
  if (text === 'true') return true;
  if (text === 'false') return false;
  const number = Number(text);
  return text !== '' && Number.isFinite(number) ? number : text;
}

/** Reads the knobs present in `env` (others keep their defaults); throws naming the variable. */
export function knobsFromEnv(env: Readonly<Record<string, string | undefined>>): KnobsPatch {
  const patch: Record<string, unknown> = {};
  for (const [knob, variable] of Object.entries(KNOB_ENV)) {
    const raw = env[variable];
    if (raw !== undefined && raw !== '') patch[knob] = envValue(raw);
  }
  try {
    return parseKnobsPatch(patch);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`sandbox environment: ${message} (variables ${Object.values(KNOB_ENV).join(', ')})`);
  }
}

/** True when a webhook should be dropped now, by the knob's probability or flag. */
export function shouldDropWebhook(knobs: SandboxKnobs, random = Math.random()): boolean {
  const drop = knobs.webhookDrop;
  if (typeof drop === 'boolean') return drop;
  return random < drop;
}
