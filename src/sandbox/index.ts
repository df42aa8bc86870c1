export { createSandbox, type Sandbox, type SandboxOptions } from './server.js';
export { DEFAULT_KNOBS, KNOB_ENV, knobsFromEnv, type KnobsPatch, type SandboxKnobs } from './knobs.js';
export { fingerprintOf, type CounterSnapshot } from './counters.js';
export { OPERATION_BY_ROUTE, type SandboxOperation } from './operations.js';
export * from './scenarios.js';
