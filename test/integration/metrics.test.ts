/**
 * /metrics on the admin listener, against the real stack: each metric the service exports
 * moves when the thing it counts happens (breaker pauses, 429s, reused paid outcomes, spend
 * caps, transactions, lag, webhooks, pending and expired searches).
 */
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { plateFor } from '../../src/sandbox/index.js';
import { publish, summaryRequests } from '../helpers/service.js';
import { quickBreakerEnv, serverErrors, useTestKafka } from '../helpers/test-kafka.js';

const { kafka, start } = useTestKafka();

async function setup(name: string, env: Record<string, string>) {
  const started = await start(name, { env: { CONSUMER_LAG_INTERVAL_MS: '200', ...env } });
  const scrape = async (): Promise<string> => {
    const response = await started.admin('/metrics');
    expect(response.status).toBe(200);
    return response.text();
  };
  return { ...started, scrape };
}

/** The value of the first sample line of `name` whose labels include every one of `labels`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

async function eventually(scrape: () => Promise<string>, check: (text: string) => boolean, what: string) {
  const deadline = Date.now() + 30_000;
  let text = '';
  while (Date.now() < deadline) {
    text = await scrape();
    if (check(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const positive = (value: number | undefined): boolean => value !== undefined && value > 0;

describe('metrics', () => {
  it('shows a partition paused by the breaker, the breaker state, its transitions and the retries', async () => {
    const {
      summaryTopic: topic,
      sandbox,
      collector,
      scrape,
      publishSummaries,
    } = await setup('m-breaker', quickBreakerEnv(6, 3, 1500, { VENDOR_MAX_CONCURRENT: '2' }));
    sandbox.setKnobs(serverErrors(500));
    await publishSummaries('m-outage', 6, 700);
    const open = await eventually(
      scrape,
      (t) =>
        positive(sample(t, 'verification_partitions_paused', { topic, reason: 'breaker' })) &&
        sample(t, 'verification_breaker_state', { operation: 'lawsuits-summary' }) === 2,
      'the breaker to pause the topic',
    );
    expect(
      sample(open, 'verification_breaker_transitions_total', { operation: 'lawsuits-summary', kind: 'open' }),
    ).toBe(1);
    expect(
      positive(
        sample(open, 'verification_vendor_retries_total', {
          operation: 'lawsuits-summary',
          reason: 'VENDOR_SERVER_ERROR',
        }),
      ),
    ).toBe(true);
    expect(
      positive(
        sample(open, 'verification_vendor_call_seconds_count', {
          operation: 'lawsuits-summary',
          outcome: 'upstream_unavailable',
        }),
      ),
    ).toBe(true);
    sandbox.setKnobs({ errorRate: 0 });
    await collector.waitFor(() => collector.results().length === 6, 30_000, 'the results after the outage');
    const closed = await eventually(
      scrape,
      (t) =>
        positive(
          sample(t, 'verification_breaker_transitions_total', {
            operation: 'lawsuits-summary',
            kind: 'close',
          }),
        ),
      'the breaker to close',
    );
    expect(sample(closed, 'verification_breaker_state', { operation: 'lawsuits-summary' })).toBe(0);
    expect(sample(closed, 'verification_partitions_paused', { topic, reason: 'breaker' })).toBeUndefined();
  });

  it('counts 429s, reused paid outcomes, transactions, end-to-end time, lag and the consumer', async () => {
    const { prefix, sandbox, collector, scrape } = await setup('m-flow', { RETRY_BASE_MS: '20' });
    const topic = topicNames(prefix).request('lawsuits-summary');
    sandbox.setKnobs({ rateLimitPerSecond: 2 });
    const requests = summaryRequests('m-flow', 6, 720);
    await publish(kafka, topic, requests);
    await collector.waitFor(() => collector.results().length === 6, 30_000, 'six results');
    // The same requestIds again: answered from the paid outcomes, no new vendor call.
    await publish(kafka, topic, requests.slice(0, 2));
    await collector.waitFor(() => collector.results().length === 8, 30_000, 'the two redeliveries');
    const text = await eventually(
      scrape,
      (t) => sample(t, 'verification_dedupe_reused_total', { operation: 'lawsuits-summary' }) === 2,
      'two reused outcomes',
    );
    const op = { operation: 'lawsuits-summary' };
    expect(positive(sample(text, 'verification_vendor_rate_limited_total', op))).toBe(true);
    expect(
      positive(sample(text, 'verification_vendor_retries_total', { ...op, reason: 'VENDOR_RATE_LIMITED' })),
    ).toBe(true);
    expect(sample(text, 'verification_vendor_calls_started_total', op)).toBe(sandbox.counters().total);
    expect(sample(text, 'verification_limiter_wait_seconds_count', op)).toBe(sandbox.counters().total);
    expect(sample(text, 'verification_end_to_end_seconds_count', op)).toBe(8);
    expect(sample(text, 'verification_committed_total')).toBe(8);
    expect(positive(sample(text, 'verification_transactions_committed_total'))).toBe(true);
    expect(positive(sample(text, 'verification_transaction_commit_seconds_count'))).toBe(true);
    expect(sample(text, 'verification_outcomes_total', { ...op, kind: 'result', status: 'ok' })).toBe(8);
    expect(positive(sample(text, 'verification_consumer_rebalances_total'))).toBe(true);
    expect(sample(text, 'verification_partitions_assigned', { topic })).toBe(3);
    expect(sample(text, 'verification_requests_in_flight')).toBe(0);
    expect(sample(text, 'verification_partition_window_used_ratio', { topic })).toBe(0);
    // No 429 in this run: present, and off.
    expect(sample(text, 'verification_limiter_backoff_active', op)).toBe(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('nodejs_gc_duration_seconds');
    // Bounded labels: no request id, key or tax id ever appears.
    for (const request of requests) {
      expect(text).not.toContain((request.value as { requestId: string }).requestId);
      expect(text).not.toContain(String(request.key));
    }
    const lagged = await eventually(
      scrape,
      (t) =>
        [0, 1, 2].every(
          (p) => sample(t, 'verification_consumer_lag_messages', { topic, partition: String(p) }) === 0,
        ),
      'the lag of every partition to read 0',
    );
    expect(lagged).toContain('verification_consumer_lag_messages');
  });

  it('pauses an operation at its spend cap and shows the calls of the hour against it', async () => {
    const {
      summaryTopic: topic,
      scrape,
      publishSummaries,
    } = await setup('m-cap', {
      VENDOR_LIMITS: '{"lawsuits-summary":{"spendCapPerHour":2}}',
      SHUTDOWN_TIMEOUT_MS: '500',
    });
    await publishSummaries('m-cap', 4, 740);
    const text = await eventually(
      scrape,
      (t) => positive(sample(t, 'verification_partitions_paused', { topic, reason: 'spend-cap' })),
      'the spend cap to pause the topic',
    );
    expect(sample(text, 'verification_spend_cap_calls_this_hour', { operation: 'lawsuits-summary' })).toBe(2);
    expect(sample(text, 'verification_spend_cap_per_hour', { operation: 'lawsuits-summary' })).toBe(2);
  });

  it('counts webhook calls by answer code, pending and expired searches', async () => {
    const { prefix, sandbox, service, scrape } = await setup('m-search', {
      WEBHOOK_PUBLIC_URL: 'http://127.0.0.1:0',
      ALLOW_INSECURE_TRANSPORT: 'true',
      WEBHOOK_SECRET: 'a-secret-of-enough-length',
      VEHICLE_SEARCH_POLL_MS: '200',
      VEHICLE_SEARCH_POLL_MAX_MS: '400',
      VEHICLE_SEARCH_EXPIRY_MS: '2500',
    });
    sandbox.setKnobs({ asyncDelayMs: 600_000, webhookDrop: true });
    const plate = plateFor('async-sucessful', 71);
    await publish(kafka, topicNames(prefix).request('vehicle-async'), [
      { key: plate, value: { requestId: 'm-search-1', params: { licensePlate: plate } } },
    ]);
    await eventually(
      scrape,
      (t) => sample(t, 'verification_vehicle_searches_pending') === 1,
      'a pending search',
    );
    const unsigned = await fetch(`http://127.0.0.1:${service.httpPort}/webhooks/vehicle-search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(unsigned.status).toBeGreaterThanOrEqual(400);
    const text = await eventually(
      scrape,
      (t) => sample(t, 'verification_vehicle_searches_expired_total') === 1,
      'the search to expire',
    );
    expect(sample(text, 'verification_webhook_calls_total', { code: String(unsigned.status) })).toBe(1);
    expect(sample(text, 'verification_vehicle_searches_pending')).toBe(0);
    const publicMetrics = await fetch(`http://127.0.0.1:${service.httpPort}/metrics`);
    expect(publicMetrics.status).toBe(404);
  });
});
