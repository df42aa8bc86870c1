import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** Builds the metric families of one registry, each registered as it is made. */
export interface MetricFactory {
  counter<L extends string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
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

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

export function metricFactory(registry: Registry): MetricFactory {
  const registers = [registry];
  return {
    counter: (name, help, labelNames = []) => new Counter({ name, help, labelNames, registers }),
    histogram: (name, help, labelNames = [], buckets = SECONDS_BUCKETS) =>
      new Histogram({ name, help, labelNames, buckets, registers }),
    gauge: (name, help, labelNames, collect) =>
      new Gauge({
        name,
        help,
        labelNames,
        registers,
        ...(collect
          ? {
              collect() {
                return collect(this);
              },
            }
          : {}),
      }),
  };
}
