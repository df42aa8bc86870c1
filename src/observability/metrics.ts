import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Operation } from '../contract/operations.js';
import type { RuntimeMetrics } from '../consumers/runtime.js';

/** Prometheus metrics of the service (prom-client, the de-facto Node client). */
export interface ServiceMetrics extends RuntimeMetrics {
  readonly registry: Registry;
  vendorCall(operation: Operation, outcome: string, seconds: number): void;
}

export function createMetrics(): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const outcomes = new Counter({
    name: 'verification_outcomes_total',
    help: 'Requests that reached an outcome, by operation, kind (result or error) and status or error kind',
    labelNames: ['operation', 'kind', 'status'],
    registers: [registry],
  });
  const committed = new Counter({
    name: 'verification_committed_total',
    help: 'Request messages whose outcome was committed in a transaction',
    registers: [registry],
  });
  const vendorSeconds = new Histogram({
    name: 'verification_vendor_call_seconds',
    help: 'Vendor call durations by operation and outcome',
    labelNames: ['operation', 'outcome'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
    registers: [registry],
  });
  return {
    registry,
    outcome(operation, kind, status) {
      outcomes.inc({ operation, kind, status });
    },
    committed(count) {
      committed.inc(count);
    },
    vendorCall(operation, outcome, seconds) {
      vendorSeconds.observe({ operation, outcome }, seconds);
    },
  };
}
