/**
 * (a) instant vendor, BENCH_A_REQUESTS (100k) requests over 6 partitions: results/s, CPU
 * seconds per 1,000 messages, peak RSS; and the vendor leg alone (vendorAlone), the machine's
 * ceiling for (a) without Kafka.
 */
import { parseParams } from '../../src/contract/params.js';
import { cpfFor } from '../../src/sandbox/scenarios.js';
import { createVendorClient } from '../../src/vendor-api/client.js';
import { ownCpuSeconds, startSandbox } from '../measure.js';
import { cpuSeconds, stop } from '../processes.js';
import { API_KEY, round, SANDBOX_PORT, type Scenario } from '../scenario.js';

export const instantVendor: Scenario = {
  id: 'a',
  title: 'instant vendor, 6 partitions',
  partitions: 6,
  requests: Number(process.env.BENCH_A_REQUESTS ?? 100_000),
  sandbox: {},
  service: {
    VENDOR_LIMITS: JSON.stringify({ 'lawsuits-summary': { ratePerSecond: 1_000_000, maxConcurrent: 256 } }),
    MAX_IN_FLIGHT: '1000',
    PARTITION_WINDOW: '2000',
    VENDOR_CONNECTIONS: '64',
  },
  baselineConcurrency: 6,
  baselineCapMs: 240_000,
  extra: async () => ({ vendorAlone: await vendorAlone() }),
};

/**
 * The machine's ceiling for (a) without Kafka: the sandbox alone, called by the same vendor
 * client as the service from this process, 64 calls at a time for 5 s after 1 s of warm-up.
 * No service can return results faster than this machine answers the calls behind them.
 */
async function vendorAlone(): Promise<Record<string, unknown>> {
  const sandbox = await startSandbox({});
  const vendor = createVendorClient({ baseUrl: `http://127.0.0.1:${SANDBOX_PORT}`, apiKey: API_KEY });
  const params = Array.from({ length: 1000 }, (_, i) => {
    const parsed = parseParams('lawsuits-summary', { taxId: cpfFor('happy', i) });
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.params;
  });
  try {
    const run = async (ms: number): Promise<number> => {
      const until = Date.now() + ms;
      let calls = 0;
      await Promise.all(
        Array.from({ length: 64 }, async (_, worker) => {
          for (let i = worker; Date.now() < until; i += 64) {
            await vendor.call('lawsuits-summary', params[i % params.length] ?? params[0]!);
            calls += 1;
          }
        }),
      );
      return calls;
    };
    await run(1_000);
    const pid = sandbox.child.pid ?? 0;
    const before = { sandbox: cpuSeconds(pid), client: ownCpuSeconds(), at: Date.now() };
    const calls = await run(5_000);
    const seconds = (Date.now() - before.at) / 1000;
    return {
      callsPerSecond: round(calls / seconds),
      coresUsed: {
        sandbox: round((cpuSeconds(pid) - before.sandbox) / seconds, 2),
        client: round((ownCpuSeconds() - before.client) / seconds, 2),
      },
    };
  } finally {
    await vendor.close();
    await stop(sandbox);
  }
}
