/**
 * Settings a run would take from the benchmark's own environment. Every process it starts
 * inherits that environment under the benchmark's own settings (bench/processes.ts), so a
 * variable such as COMMIT_INTERVAL_MS or SANDBOX_LATENCY_MS left exported in the shell changes
 * what is measured without changing the code. A run with any of them is partial: it does not
 * replace the reference results, and the results name them.
 */
import { SETTING_NAMES } from '../src/config.js';
import { KNOB_ENV } from '../src/sandbox/knobs.js';
import { sandboxEnv, serviceEnv } from './measure.js';

/** The service's and the sandbox's variables that the benchmark does not set itself for every run. */
function inheritable(): string[] {
  const setByBench = new Set([...Object.keys(serviceEnv(1, 'bench')), ...Object.keys(sandboxEnv())]);
  return [...new Set([...SETTING_NAMES, ...Object.values(KNOB_ENV)])].filter((name) => !setByBench.has(name));
}

/** The names (never the values: some are secrets) of the settings `env` would hand on. */
export function inheritedSettings(env: Readonly<Record<string, string | undefined>>): string[] {
  return inheritable()
    .filter((name) => env[name] !== undefined)
    .sort();
}
