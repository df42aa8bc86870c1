/**
 * Systems measured in turns on one scenario, for A/B figures on a busy machine: each round
 * measures every system once, the order swapped each round, and the service's figures are
 * printed over the other system's of the same round. Needs the local stack, as `npm run bench`.
 *
 *   BENCH_ALTERNATE_ROUNDS=3 BENCH_A_REQUESTS=20000 npx tsx bench/alternate.ts a service one-instance
 *
 * BENCH_SERVICE_NODE_OPTIONS reaches every system (e.g. `--cpu-prof --cpu-prof-dir=...`).
 */
import { createKafka } from '../src/kafka/client.js';
import { measure } from './measure.js';
import { buildForBench } from './processes.js';
import { ADMIN_PORT, BROKERS, round, type Measured, type Scenario, type SystemName } from './scenario.js';
import { instantVendor } from './scenarios/a-instant-vendor.js';
import { rateLimitedVendor } from './scenarios/b-rate-limited-vendor.js';

const SCENARIOS: Record<string, Scenario> = { a: instantVendor, b: rateLimitedVendor };
const SYSTEMS: readonly SystemName[] = ['service', 'one-instance', 'baseline', 'floor'];

function line(m: Measured): string {
  // The vendor sandbox's own count: the most calls it took in any sliding second.
  const rate =
    m.achievedPerLimit === undefined
      ? ''
      : ` ${m.achievedPerLimit} of the limit, at most ${m.vendor.maxInAnySlidingSecond} calls in a sliding second,`;
  return `${m.system}:${rate} ${m.outcomesPerSecond}/s, ${m.cpuSecondsPer1000} CPU-ms/request, ${m.peakRssMiB} MiB, ${m.requestsWithOutcome} with an outcome, ${m.duplicateOutcomes} duplicates`;
}

async function main([id = 'a', ...names]: string[]): Promise<void> {
  const scenario = SCENARIOS[id];
  if (!scenario) throw new Error(`scenario: a or b, got "${id}"`);
  const systems = (names.length > 0 ? names : ['service', 'one-instance']).map((name) => {
    const system = SYSTEMS.find((s) => s === name);
    if (!system) throw new Error(`system: one of ${SYSTEMS.join(', ')}, got "${name}"`);
    return system;
  });
  const rounds = Number(process.env.BENCH_ALTERNATE_ROUNDS ?? 2);
  buildForBench();
  const kafka = createKafka({ clientId: 'bench', brokers: BROKERS.split(',') });
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? systems : [...systems].reverse();
      const measured = new Map<SystemName, Measured>();
      for (const system of order) {
        const probe =
          scenario.serviceProbe && (system === 'service' || system === 'one-instance')
            ? { probe: scenario.serviceProbe, extraEnv: { ADMIN_PORT: String(ADMIN_PORT) } }
            : {};
        const m = await measure(kafka, admin, scenario, system, probe);
        measured.set(system, m);
        console.log(`round ${r + 1} ${line(m)}${m.probe ? ` ${JSON.stringify(m.probe)}` : ''}`);
      }
      const [first, ...others] = systems.map((s) => measured.get(s));
      for (const other of others)
        if (first && other)
          console.log(
            `round ${r + 1} ${first.system}/${other.system}: throughput ${round(first.outcomesPerSecond / other.outcomesPerSecond, 2)}, CPU/request ${round(first.cpuSecondsPer1000 / other.cpuSecondsPer1000, 2)}, RSS ${round(first.peakRssMiB / other.peakRssMiB, 2)}`,
          );
    }
  } finally {
    await admin.disconnect();
  }
}

await main(process.argv.slice(2));
