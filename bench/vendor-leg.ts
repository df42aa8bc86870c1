/**
 * The vendor leg alone: the sandbox called by the same vendor client as the service, from this
 * process, without Kafka or Redis. What no service on this machine can do better than, measured
 * in the same run as the scenario it bounds.
 */
import { parseParams, type ParamsOf } from '../src/contract/params.js';
import { cpfFor } from '../src/sandbox/scenarios.js';
import { createVendorClient, type VendorClient } from '../src/vendor-api/client.js';
import { VendorError } from '../src/vendor-api/errors.js';
import { ownCpuSeconds, startSandbox } from './measure.js';
import { cpuSeconds, stop } from './processes.js';
import { API_KEY, round, SANDBOX_PORT } from './scenario.js';

type LawsuitParams = ParamsOf<'lawsuits-summary'>;

function lawsuitParams(count: number): LawsuitParams[] {
  return Array.from({ length: count }, (_, i) => {
    const parsed = parseParams('lawsuits-summary', { taxId: cpfFor('happy', i) });
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.params;
  });
}

/** A sandbox with `knobs`, a client with `connections`, and `body` run between them. */
async function withVendor<T>(
  knobs: Record<string, string>,
  connections: number | undefined,
  body: (vendor: VendorClient, sandboxPid: number, params: LawsuitParams[]) => Promise<T>,
): Promise<T> {
  const sandbox = await startSandbox(knobs);
  const vendor = createVendorClient({
    baseUrl: `http://127.0.0.1:${SANDBOX_PORT}`,
    apiKey: API_KEY,
    ...(connections === undefined ? {} : { connections }),
  });
  try {
    return await body(vendor, sandbox.child.pid ?? 0, lawsuitParams(1000));
  } finally {
    await vendor.close();
    await stop(sandbox);
  }
}

/**
 * The ceiling for (a): 64 calls at a time for 5 s after 1 s of warm-up. No service can return
 * results faster than this machine answers the calls behind them.
 */
export function vendorAlone(): Promise<Record<string, unknown>> {
  return withVendor({}, undefined, async (vendor, sandboxPid, params) => {
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
    const before = { sandbox: cpuSeconds(sandboxPid), client: ownCpuSeconds(), at: Date.now() };
    const calls = await run(5_000);
    const seconds = (Date.now() - before.at) / 1000;
    return {
      callsPerSecond: round(calls / seconds),
      coresUsed: {
        sandbox: round((cpuSeconds(sandboxPid) - before.sandbox) / seconds, 2),
        client: round((ownCpuSeconds() - before.client) / seconds, 2),
      },
    };
  });
}

export interface PacedLeg {
  ratePerSecond: number;
  calls: number;
  /** Calls the sandbox refused with 429 (the pace is under its limit: expected 0). */
  rateLimited: number;
  /** Calls that failed otherwise (expected 0; the figure is suspect when not). */
  failed: number;
  /** This process's CPU per call: the floor of CPU per request at this pace. */
  cpuMsPerCall: number;
}

/**
 * The floor for (b): calls started one per timer at `ratePerSecond`, evenly spaced, as a
 * limiter pacing one call per slot starts them, against a sandbox with `knobs`; 3 s of warm-up,
 * then `seconds` measured. At a paced rate each call is its own few events (a timer, a socket
 * write, a response), and their cost per call is what this figure is.
 */
export function vendorPaced(
  knobs: Record<string, string>,
  ratePerSecond: number,
  connections: number,
  seconds = 20,
): Promise<PacedLeg> {
  return withVendor(knobs, connections, async (vendor, _sandboxPid, params) => {
    const run = async (span: number): Promise<{ calls: number; rateLimited: number; failed: number }> => {
      const total = Math.floor(ratePerSecond * span);
      const startedAt = performance.now();
      const counts = { calls: 0, rateLimited: 0, failed: 0 };
      const calls: Promise<void>[] = [];
      await new Promise<void>((resolve) => {
        let next = 0;
        const start = (): void => {
          calls.push(
            vendor.call('lawsuits-summary', params[next % params.length] ?? params[0]!).then(
              () => {
                counts.calls += 1;
              },
              (error: unknown) => {
                if (error instanceof VendorError && error.code === 'VENDOR_RATE_LIMITED')
                  counts.rateLimited += 1;
                else counts.failed += 1;
              },
            ),
          );
          next += 1;
          if (next >= total) {
            resolve();
            return;
          }
          setTimeout(start, Math.max(0, startedAt + (next * 1000) / ratePerSecond - performance.now()));
        };
        start();
      });
      await Promise.all(calls);
      return counts;
    };
    await run(3);
    const cpuBefore = ownCpuSeconds();
    const { calls, rateLimited, failed } = await run(seconds);
    const cpu = ownCpuSeconds() - cpuBefore;
    return {
      ratePerSecond: round(ratePerSecond),
      calls,
      rateLimited,
      failed,
      cpuMsPerCall: round((cpu * 1000) / Math.max(1, calls + rateLimited + failed), 3),
    };
  });
}
