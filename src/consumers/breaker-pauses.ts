import type { Logger } from 'pino';
import { OPERATIONS, type Operation } from '../contract/operations.js';
import type { CircuitBreaker } from '../requests/circuit-breaker.js';
import type { PauseControl } from './pause-control.js';

/** What `BreakerPauses` depends on. */
export interface BreakerPausesDeps {
  pauses: PauseControl;
  breakerFor(operation: Operation): CircuitBreaker;
  /** The operation's request topics (both lanes). */
  topicsOf(operation: Operation): string[];
  /** The partitions of a topic this instance holds now. */
  partitionsOf(topic: string): number[];
  logger: Logger;
  probeIntervalMs?: number;
}

const DEFAULT_PROBE_INTERVAL_MS = 1_000;

/**
 * Pauses an operation's partitions while its breaker is open, and keeps the breaker able to
 * close. A half-open breaker needs a call to probe with; when nothing in flight wants one
 * (every request gave up before the breaker opened), one paused partition is resumed for one
 * message (a probe credit) every `probeIntervalMs` until a probe is under way. A credit is
 * used by admit(), which pauses the partition again as it hands the message over.
 */
export class BreakerPauses {
  private readonly credits = new Set<string>();
  private readonly timers = new Map<Operation, NodeJS.Timeout>();
  private readonly next = new Map<Operation, number>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(private readonly deps: BreakerPausesDeps) {
    for (const operation of OPERATIONS) this.watch(operation);
  }

  /** A partition just opened: paused at once when its operation's breaker is not closed. */
  opened(operation: Operation, topic: string, partition: number): void {
    if (this.deps.breakerFor(operation).state !== 'closed')
      this.deps.pauses.pause(topic, partition, 'breaker');
  }

  /**
   * Whether the next message of a partition may be taken: not while the breaker holds it,
   * except for one message per probe credit.
   */
  admit(topic: string, partition: number): boolean {
    const id = creditId(topic, partition);
    if (this.credits.delete(id)) {
      this.deps.pauses.pause(topic, partition, 'breaker');
      return true;
    }
    return !this.deps.pauses.isPausedFor(topic, partition, 'breaker');
  }

  stop(): void {
    for (const timer of this.timers.values()) clearInterval(timer);
    this.timers.clear();
    for (const off of this.unsubscribe.splice(0)) off();
  }

  private watch(operation: Operation): void {
    const breaker = this.deps.breakerFor(operation);
    const topics = this.deps.topicsOf(operation);
    const pauseAll = (): void => {
      this.stopProbing(operation, topics);
      for (const topic of topics)
        for (const partition of this.deps.partitionsOf(topic))
          this.deps.pauses.pause(topic, partition, 'breaker');
    };
    const onOpen = (): void => {
      this.deps.logger.warn({ operation }, 'circuit breaker open; pausing the operation');
      pauseAll();
    };
    const onClose = (): void => {
      this.deps.logger.info({ operation }, 'circuit breaker closed; resuming the operation');
      this.stopProbing(operation, topics);
      for (const topic of topics)
        for (const partition of this.deps.partitionsOf(topic))
          this.deps.pauses.resume(topic, partition, 'breaker');
    };
    const onHalfOpen = (): void => {
      // Callers woken by the cool-down take the probe in their next microtasks: look later.
      const timer = setInterval(() => {
        this.grantProbe(operation, topics, breaker);
      }, this.deps.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS);
      timer.unref();
      clearInterval(this.timers.get(operation));
      this.timers.set(operation, timer);
      setTimeout(() => {
        this.grantProbe(operation, topics, breaker);
      }, 20).unref();
    };
    breaker.on('open', onOpen);
    breaker.on('reopen', pauseAll);
    breaker.on('close', onClose);
    breaker.on('half-open', onHalfOpen);
    this.unsubscribe.push(() => {
      breaker.off('open', onOpen);
      breaker.off('reopen', pauseAll);
      breaker.off('close', onClose);
      breaker.off('half-open', onHalfOpen);
    });
  }

  /** Resumes the next partition held by the breaker alone for one message, round robin. */
  private grantProbe(operation: Operation, topics: readonly string[], breaker: CircuitBreaker): void {
    if (!breaker.needsProbe()) return;
    const held = topics.flatMap((topic) =>
      this.deps
        .partitionsOf(topic)
        .filter(
          (partition) =>
            this.deps.pauses.isPausedFor(topic, partition, 'breaker') &&
            !this.credits.has(creditId(topic, partition)),
        )
        .map((partition) => ({ topic, partition })),
    );
    if (held.length === 0) return;
    const index = (this.next.get(operation) ?? 0) % held.length;
    this.next.set(operation, index + 1);
    const chosen = held[index] ?? held[0];
    if (chosen === undefined) return;
    const { topic, partition } = chosen;
    this.credits.add(creditId(topic, partition));
    this.deps.logger.info(
      { operation, topic, partition },
      'circuit breaker half-open; taking one request to probe with',
    );
    this.deps.pauses.resume(topic, partition, 'breaker');
  }

  private stopProbing(operation: Operation, topics: readonly string[]): void {
    clearInterval(this.timers.get(operation));
    this.timers.delete(operation);
    for (const topic of topics)
      for (const id of [...this.credits]) if (id.startsWith(`${topic}\u0000`)) this.credits.delete(id);
  }
}

function creditId(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
