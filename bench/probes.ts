/**
 * Figures read from the service while it runs: its broker connections (from /proc) and its own
 * counters (from /metrics on ADMIN_PORT, which the scenario gives the service).
 */
import type { RunProbe } from './measure.js';
import { brokerPorts, connectionsTo, metricSum, syscallsOf } from './proc.js';
import { ADMIN_PORT, BROKERS, round } from './scenario.js';

const TRANSACTIONS = 'verification_transactions_committed_total';

/** The service's /metrics page. */
export async function serviceMetrics(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${ADMIN_PORT}/metrics`);
  if (!response.ok) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
}

/** The sum of one metric's samples on the service's /metrics. */
export async function serviceMetric(name: string): Promise<number> {
  return metricSum(await serviceMetrics(), name);
}

/** Transactions the service committed from the first outcome (`first`) until now (`since`). */
function transactionsOverRun(): { first(): Promise<void>; since(): Promise<number> } {
  let atFirst = 0;
  return {
    async first() {
      atFirst = await serviceMetric(TRANSACTIONS);
    },
    async since() {
      return (await serviceMetric(TRANSACTIONS)) - atFirst;
    },
  };
}

/** The service's established connections to the brokers now. */
export function brokerConnections(pid: number): number {
  return connectionsTo(pid, brokerPorts(BROKERS));
}

/**
 * Broker connections (the most seen, sampled every 200 ms) and transactions committed per
 * second over the measured span.
 */
export function connectionsAndTransactions(pid: number): RunProbe {
  let maxConnections = brokerConnections(pid);
  const committed = transactionsOverRun();
  return {
    first: () => committed.first(),
    tick() {
      maxConnections = Math.max(maxConnections, brokerConnections(pid));
    },
    async last(seconds) {
      const transactions = await committed.since();
      return {
        brokerConnectionsMax: maxConnections,
        transactions,
        transactionsPerSecond: round(transactions / seconds),
      };
    },
  };
}

/**
 * Transactions committed and the process's read and write system calls, per second over the
 * measured span: at a paced rate every request is its own few events (scenario (b)).
 */
export function transactionsAndSyscalls(pid: number): RunProbe {
  const committed = transactionsOverRun();
  let syscallsAtFirst = { reads: 0, writes: 0 };
  return {
    async first() {
      syscallsAtFirst = syscallsOf(pid);
      await committed.first();
    },
    tick() {},
    async last(seconds) {
      const syscalls = syscallsOf(pid);
      const transactions = await committed.since();
      return {
        transactionsPerSecond: round(transactions / seconds),
        readSyscallsPerSecond: round((syscalls.reads - syscallsAtFirst.reads) / seconds),
        writeSyscallsPerSecond: round((syscalls.writes - syscallsAtFirst.writes) / seconds),
      };
    },
  };
}
