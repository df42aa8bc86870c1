import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import type { Logger } from '../observability/logger.js';
import type { Counters } from './counters.js';
import { shouldDropWebhook, type SandboxKnobs } from './knobs.js';

/** The webhook as accepted by POST /vehicles-async/v3 (validated there). */
export interface WebhookTarget {
  url: string;
  method?: 'POST' | 'GET' | 'PATCH' | 'PUT' | undefined;
  headers?: Record<string, string> | undefined;
  body?: Record<string, unknown> | undefined;
}

export interface WebhookSenderDeps {
  knobs: SandboxKnobs;
  counters: Counters;
  logger: Logger | undefined;
}

/**
 * Calls webhooks the way the spec describes (method, headers and body given at creation) and,
 * where the spec is silent (retries, time-outs), the way the knobs say: retry on a non-2xx
 * answer or a network error with exponential backoff, optionally drop or duplicate.
 */
export class WebhookSender {
  private readonly agent = new Agent({ keepAliveTimeout: 1_000, connections: 64 });
  private readonly abort = new AbortController();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(private readonly deps: WebhookSenderDeps) {}

  /** Starts delivery in the background. */
  deliver(target: WebhookTarget): void {
    const { knobs, counters } = this.deps;
    if (shouldDropWebhook(knobs)) {
      counters.webhooks.dropped++;
      return;
    }
    const copies = knobs.webhookDuplicates ? 2 : 1;
    const run = async (): Promise<void> => {
      for (let copy = 0; copy < copies; copy++) await this.sendWithRetries(target);
    };
    const promise = run().finally(() => this.inFlight.delete(promise));
    this.inFlight.add(promise);
  }

  /** Resolves when every delivery started so far has finished (tests and shutdown). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.idle();
    await this.agent.close();
  }

  private async sendWithRetries(target: WebhookTarget): Promise<void> {
    const { knobs, counters, logger } = this.deps;
    const attempts = 1 + knobs.webhookRetries;
    for (let attempt = 1; attempt <= attempts && !this.abort.signal.aborted; attempt++) {
      counters.webhooks.attempts++;
      const status = await this.sendOnce(target);
      if (status >= 200 && status < 300) {
        counters.webhooks.delivered++;
        return;
      }
      logger?.debug({ attempt, status }, 'sandbox webhook attempt failed');
      if (attempt < attempts) {
        const backoff = knobs.webhookBackoffMs * 2 ** (attempt - 1);
        try {
          await sleep(backoff, undefined, { signal: this.abort.signal });
        } catch {
          return;
        }
      }
    }
    counters.webhooks.failed++;
  }

  /** The status code, or 0 for a network error or time-out. */
  private async sendOnce(target: WebhookTarget): Promise<number> {
    const headers: Record<string, string> = { ...(target.headers ?? {}) };
    const hasBody = target.body !== undefined;
    if (hasBody && !Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
    const timeout = this.deps.knobs.webhookTimeoutMs;
    try {
      const response = await request(target.url, {
        method: target.method ?? 'POST',
        headers,
        body: hasBody ? JSON.stringify(target.body) : undefined,
        dispatcher: this.agent,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        signal: this.abort.signal,
      });
      await response.body.dump();
      return response.statusCode;
    } catch {
      return 0;
    }
  }
}
