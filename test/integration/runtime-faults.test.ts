/**
 * Vendor failures on the real stack: retries then dead letter, and an outage that opens the
 * circuit breaker, pauses the operation instead of draining it into the errors topic, and
 * closes again by itself.
 */
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { cpfFor } from '../../src/sandbox/index.js';
import { expectExactlyOneOutcomeEach, publish } from '../helpers/service.js';
import { quickBreakerEnv, serverErrors, useTestKafka } from '../helpers/test-kafka.js';

const { kafka, start } = useTestKafka();
const setup = (name: string, env: Record<string, string>) => start(name, { env });

describe('runtime under vendor failures', () => {
  it('retries retryable failures with backoff, then dead-letters them with the attempts', async () => {
    const { sandbox, collector, publishSummaries } = await setup('retry', {
      RETRY_MAX_ATTEMPTS: '3',
      RETRY_BASE_MS: '20',
      BREAKER_FAILURE_THRESHOLD: '1000',
    });
    sandbox.setKnobs(serverErrors(503));
    await publishSummaries('retry', 3, 400);
    await collector.waitFor(() => collector.errors().length === 3, 30_000, 'three dead letters');
    for (const error of collector.errors()) {
      expect(error.value).toMatchObject({
        attempts: 3,
        error: { kind: 'upstream_unavailable', retryable: true, httpStatus: 503 },
      });
      expect((error.value.request as { requestId: string }).requestId).toMatch(/^retry-/);
    }
    expect(sandbox.counters().faults).toBe(9);
    expect(collector.results()).toEqual([]);
  });

  it('dead-letters a vendor rejection at once, without retrying it', async () => {
    const { sandbox, collector, publishSummaries } = await setup('reject', {
      RETRY_MAX_ATTEMPTS: '5',
      VENDOR_API_KEY: 'revoked-key',
    });
    await publishSummaries('reject', 2, 420);
    await collector.waitFor(() => collector.errors().length === 2, 30_000, 'two dead letters');
    for (const error of collector.errors()) {
      expect(error.value).toMatchObject({
        attempts: 1,
        error: { kind: 'unauthorized', retryable: false, httpStatus: 401 },
      });
      expect(JSON.stringify(error.value)).not.toContain('revoked-key');
    }
    expect(sandbox.counters().unauthorized).toBe(2);
  });

  it('refuses a selfie that is not a JPEG before paying for a call', async () => {
    const { sandbox, collector, prefix } = await setup('selfie', {});
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(64, 1)]).toString(
      'base64',
    );
    const cpf = cpfFor('face-match', 490);
    await publish(kafka, topicNames(prefix).request('face-document-lookup'), [
      { key: cpf, value: { requestId: 'selfie-png', params: { cpf, selfie: { base64: png } } } },
    ]);
    await collector.waitFor(() => collector.errors().length === 1, 30_000, 'the dead letter');
    expect(collector.errors()[0]?.value).toMatchObject({ attempts: 0, error: { kind: 'invalid_request' } });
    expect(sandbox.counters().total).toBe(0);
  });

  it('pauses an operation during an outage instead of draining it, and resumes by itself', async () => {
    const cooldownMs = 400;
    const { sandbox, collector, publishSummaries } = await setup(
      'breaker',
      quickBreakerEnv(6, 3, cooldownMs, { VENDOR_MAX_CONCURRENT: '4' }),
    );
    sandbox.setKnobs(serverErrors(500));
    await publishSummaries('outage', 20, 440);
    await collector.waitFor(() => sandbox.counters().faults >= 3, 20_000, 'the outage to be seen');
    // While open, only one probe per cool-down reaches the vendor; more requests do not add calls.
    // Each failed probe opens the breaker for another cool-down, so failures in a window of T ms
    // are at most T / cooldown + 1, however long publishing takes on a loaded machine.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const windowStart = Date.now();
    const duringOutage = sandbox.counters().faults;
    await publishSummaries('outage-more', 20, 460);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const afterMore = sandbox.counters().faults;
    const cooldowns = Math.floor((Date.now() - windowStart) / cooldownMs);
    expect(afterMore - duringOutage).toBeLessThanOrEqual(cooldowns + 1);
    expect(collector.errors()).toEqual([]);
    sandbox.setKnobs({ errorRate: 0 });
    // Both tags start with 'outage-': exactly one outcome for each of the 40, and each a result.
    await expectExactlyOneOutcomeEach(collector, 'outage', 40, 30_000);
    expect(collector.results()).toHaveLength(40);
    expect(collector.errors()).toEqual([]);
    expect(sandbox.counters().faults).toBeLessThan(40);
  });
});
