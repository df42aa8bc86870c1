/**
 * Issue 14, case 5: the circuit breaker could stall an operation until a restart. Paused
 * partitions resumed only when the breaker closed, and closing needed a request in flight to
 * probe with: once every request in flight had given up, nothing was left to probe. Selfie
 * download failures, the requester's own fault, must not open the vendor's breaker either.
 */
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { freePort } from '../helpers/free-port.js';
import { publish } from '../helpers/service.js';
import { quickBreakerEnv, serverErrors, useTestKafka } from '../helpers/test-kafka.js';

const { kafka, start } = useTestKafka();

async function setup(name: string, env: Record<string, string>) {
  const started = await start(name, { env });
  const metric = async (line: string): Promise<number | undefined> => {
    const text = await (await started.admin('/metrics')).text();
    const found = text.split('\n').find((l) => l.startsWith(line));
    return found === undefined ? undefined : Number(found.slice(found.lastIndexOf(' ') + 1));
  };
  return { ...started, metric };
}

const summary = (requestId: string, taxId: string) => ({
  key: 'one-key',
  value: { requestId, params: { taxId } },
});

describe('the circuit breaker never stalls an operation', () => {
  it('answers the requests queued behind an outage longer than the retry budget once the vendor recovers, without a restart', async () => {
    const {
      summaryTopic: topic,
      sandbox,
      collector,
      metric,
    } = await setup('breaker-stall', quickBreakerEnv(2, 2, 1000, { RETRY_BUDGET_MS: '2000' }));
    sandbox.setKnobs(serverErrors(503));
    // The first request spends its whole retry budget and opens the breaker as it gives up:
    // nothing is left in flight to probe with.
    await publish(kafka, topic, [summary('stall-0', cpfFor('happy', 600))]);
    await collector.waitFor(() => collector.errors().length === 1, 30_000, 'the first dead letter');
    expect(await metric('verification_breaker_state{operation="lawsuits-summary"}')).toBe(2);
    // Queued behind the open breaker (same key, so the same paused partition).
    await publish(
      kafka,
      topic,
      [1, 2, 3].map((i) => summary(`stall-${i}`, cpfFor('happy', 600 + i))),
    );
    // The outage goes on past the cool-down: the breaker takes a queued request and probes.
    await collector.waitFor(() => sandbox.counters().faults > 2, 20_000, 'a probe during the outage');
    sandbox.setKnobs({ errorRate: 0 });
    await collector.waitFor(() => collector.results().length === 3, 30_000, 'the queued requests answered');
    expect(collector.results().map((r) => r.value.requestId)).toEqual(['stall-1', 'stall-2', 'stall-3']);
    expect(collector.errors().map((r) => r.value.requestId)).toEqual(['stall-0']);
    expect(await metric('verification_breaker_state{operation="lawsuits-summary"}')).toBe(0);
  });

  it('answers a face lookup after three selfie URLs to a closed port: download failures do not open the breaker', async () => {
    const { prefix, sandbox, collector, metric } = await setup('breaker-selfie', {
      SELFIE_URL_ALLOW: '127.0.0.1',
      BREAKER_FAILURE_THRESHOLD: '3',
      BREAKER_COOLDOWN_MS: '600000',
    });
    const port = await freePort();
    const topic = topicNames(prefix).request('face-document-lookup');
    const cpf = cpfFor('face-match', 610);
    const jpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 7)]).toString(
      'base64',
    );
    await publish(kafka, topic, [
      ...[0, 1, 2].map((i) => ({
        key: cpf,
        value: {
          requestId: `selfie-down-${i}`,
          params: { cpf, selfie: { url: `http://127.0.0.1:${port}/s${i}.jpg` } },
        },
      })),
      { key: cpf, value: { requestId: 'selfie-ok', params: { cpf, selfie: { base64: jpeg } } } },
    ]);
    await collector.waitFor(
      () => collector.errors().length === 3 && collector.results().length === 1,
      60_000,
      'three dead letters and the lookup answered',
    );
    expect(collector.results()[0]?.value.requestId).toBe('selfie-ok');
    expect(
      collector
        .errors()
        .map((e) => e.value.requestId)
        .sort(),
    ).toEqual(['selfie-down-0', 'selfie-down-1', 'selfie-down-2']);
    expect(await metric('verification_breaker_state{operation="face-document-lookup"}')).toBe(0);
    expect(
      await metric('verification_breaker_transitions_total{operation="face-document-lookup",kind="open"}'),
    ).toBe(0);
    expect(sandbox.counters().total).toBe(1);
  });
});
