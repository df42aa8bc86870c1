import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Builds the metric families of one registry, each registered as it is made. */
export interface MetricFactory {
  /** A counter its owner increments, or, with `collect`, one set at scrape time from a count kept elsewhere. */
  counter<L extends string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    collect?: (c: Counter<L>) => void,
  ): Counter<L>;
  /** Seconds, in SECONDS_BUCKETS unless buckets are given. */
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    buckets?: number[],
  ): Histogram<L>;
  /** A gauge set by `collect` at scrape time (state held elsewhere), or by its owner when absent. */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    collect?: (g: Gauge<L>) => void | Promise<void>,
  ): Gauge<L>;
}

export const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function metricFactory(registry: Registry): MetricFactory {
  const registers = [registry];
  return {
    counter: (name, help, labelNames = [], collect) =>
      new Counter({ name, help, labelNames, registers, ...collector(collect) }),
    histogram: (name, help, labelNames = [], buckets = SECONDS_BUCKETS) =>
      new Histogram({ name, help, labelNames, buckets, registers }),
    gauge: (name, help, labelNames, collect) =>
      new Gauge({ name, help, labelNames, registers, ...collector(collect) }),
  };
}

/** prom-client's `collect` option (called with the metric as `this` at scrape time), if any. */
function collector<M>(collect: ((metric: M) => void | Promise<void>) | undefined): {
  collect?: (this: M) => void | Promise<void>;
} {
  return collect
    ? {
        collect(this: M) {
          return collect(this);
        },
      }
    : {};
}
