import type { Logger } from 'pino';
import { within } from '../within.js';

/**
 * Readiness of the dependencies (broker, registry, Redis) for /readyz. Each is checked in the
 * background every `intervalMs` within `timeoutMs`, and /readyz reads the last results: a
 * probe costs no network call, and a dependency that hangs counts as down once the time limit
 * passes. A check still running from the last round is not started again.
 */
export interface DependencyCheck {
  name: string;
  /** Resolves when the dependency answers; rejects (or runs past the time limit) when it does not. */
  check(): Promise<unknown>;
}

export interface ReadinessSettings {
  intervalMs: number;
  timeoutMs: number;
}

interface CheckState {
  ok: boolean;
  running: boolean;
}

export class Readiness {
  private readonly states = new Map<string, CheckState>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly checks: readonly DependencyCheck[],
    private readonly settings: ReadinessSettings,
    private readonly logger: Logger,
  ) {
    // Start-up checked each dependency already.
    for (const { name } of checks) this.states.set(name, { ok: true, running: false });
  }

  start(): void {
    this.timer = setInterval(() => {
      this.round();
    }, this.settings.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Whether every dependency answered its last check. */
  isReady(): boolean {
    return [...this.states.values()].every((state) => state.ok);
  }

  /** The dependencies that did not answer their last check (names only). */
  failing(): string[] {
    return [...this.states].filter(([, state]) => !state.ok).map(([name]) => name);
  }

  private round(): void {
    for (const dependency of this.checks) {
      const state = this.states.get(dependency.name);
      if (!state || state.running) continue;
      state.running = true;
      void this.runOne(dependency, state).finally(() => {
        state.running = false;
      });
    }
  }

  private async runOne(dependency: DependencyCheck, state: CheckState): Promise<void> {
    try {
      await within(dependency.check(), this.settings.timeoutMs);
      if (!state.ok) this.logger.info({ dependency: dependency.name }, 'dependency answers again; ready');
      state.ok = true;
    } catch (error) {
      if (state.ok) {
        const reason = error instanceof Error ? error.message : String(error);
        this.logger.warn({ dependency: dependency.name, reason }, 'dependency does not answer; not ready');
      }
      state.ok = false;
    }
  }
}

/**
 * The broker (a metadata round trip for one of our topics, to any broker that is up) and, when
 * configured, the registry's own check. One topic, not the whole cluster's metadata: decoding
 * every topic of a large cluster at every interval would grow with the cluster into most of an
 * idle service's CPU. Not the admin client's DescribeTopics: it asks the controller it last heard
 * of, which may be the broker that died (GroupOffsetsReader.partitionsOf).
 */
export function dependencyChecks(deps: {
  metadata: { partitionsOf(topic: string): Promise<unknown> };
  /** The topic whose metadata the broker check reads (one that start-up created). */
  topic: string;
  registry?: (() => Promise<unknown>) | undefined;
}): DependencyCheck[] {
  const { metadata, topic } = deps;
  const checks: DependencyCheck[] = [{ name: 'kafka', check: () => metadata.partitionsOf(topic) }];
  const { registry } = deps;
  if (registry) checks.push({ name: 'schema-registry', check: registry });
  return checks;
}

/** The time limit of each check: the interval, within 1 to 3 s. */
export function checkTimeoutMs(intervalMs: number): number {
  return Math.max(1_000, Math.min(intervalMs, 3_000));
}
