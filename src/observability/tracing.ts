import type { Attributes, Span } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

/** The settings of `createTracing`. */
export interface TracingSettings {
  serviceName: string;
  /** OTLP/HTTP traces endpoint (…/v1/traces); no exporter when absent. */
  otlpTracesEndpoint?: string | undefined;
  /** Tests: an exporter of their own, fed span by span. */
  exporter?: SpanExporter | undefined;
}

export interface RequestTraceInput {
  operation: string;
  topic: string;
  partition: number;
  offset: string;
  traceparent?: string | undefined;
}

export interface RequestTrace {
  /** The request span's context as a W3C traceparent, for the outcome's headers. */
  readonly traceparent: string | undefined;
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** The outcome was committed in a transaction that started at `commitStartedAt` (epoch ms). */
  committed(commitStartedAt: number): void;
  /** Ends the span without a commit (aborted, revoked). */
  abandon(reason: string): void;
}

export interface Tracing {
  startRequest(input: RequestTraceInput): RequestTrace;
  /** Runs fn in a child span of the active context. */
  span<T>(name: string, fn: (span: Span) => Promise<T>, attributes?: Attributes): Promise<T>;
  /** Starts a child span of the active context, ended by the caller. */
  startSpan(name: string, attributes?: Attributes): Span;
  /** Binds fn to the context active now (work that a queue runs later). */
  bind<A extends unknown[], T>(fn: (...args: A) => Promise<T>): (...args: A) => Promise<T>;
  shutdown(): Promise<void>;
}

/**
 * OpenTelemetry tracing: one span per request from consume to commit, children made by the
 * decorators of service/tracing-instrument.ts. An upstream `traceparent` is the request span's
 * parent; the outcome carries the request span's own context. Span names and attributes hold
 * operations, topics, partitions, offsets and codes only: never params, keys or URLs.
 *
 * Undefined when nothing would receive the spans: tracing then costs nothing, and the
 * OpenTelemetry SDK is not even loaded (loading it took about 25 MiB of resident memory and
 * 5 MiB of heap in a bare Node process).
 */
export async function createTracing(settings: TracingSettings): Promise<Tracing | undefined> {
  if (!settings.exporter && !settings.otlpTracesEndpoint) return undefined;
  const { createSdkTracing } = await import('./tracing-sdk.js');
  return createSdkTracing(settings);
}
