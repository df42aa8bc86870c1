import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * OpenTelemetry tracing: one span per request from consume to commit, children made by the
 * decorators of tracing-instrument.ts. An upstream `traceparent` is the request span's parent;
 * the outcome carries the request span's own context. Span names and attributes hold
 * operations, topics, partitions, offsets and codes only: never params, keys or URLs.
 */
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

const propagator = new W3CTraceContextPropagator();
let contextManagerSet = false;

/** Undefined when nothing would receive the spans: tracing then costs nothing. */
export function createTracing(settings: TracingSettings): Tracing | undefined {
  const processors: SpanProcessor[] = [];
  if (settings.exporter) processors.push(new SimpleSpanProcessor(settings.exporter));
  if (settings.otlpTracesEndpoint)
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.otlpTracesEndpoint })));
  if (processors.length === 0) return undefined;
  if (!contextManagerSet) {
    // Spans of one request follow its awaits through AsyncLocalStorage.
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    contextManagerSet = true;
  }
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.serviceName }),
    spanProcessors: processors,
  });
  const tracer = provider.getTracer('verification-gateway');
  return {
    startRequest: (input) => startRequest(tracer, input),
    async span(name, fn, attributes) {
      return tracer.startActiveSpan(name, { attributes: attributes ?? {} }, async (span) => {
        try {
          return await fn(span);
        } catch (error) {
          span.setStatus({ code: SpanStatusCode.ERROR });
          throw error;
        } finally {
          span.end();
        }
      });
    },
    startSpan: (name, attributes) => tracer.startSpan(name, { attributes: attributes ?? {} }),
    bind(fn) {
      return context.bind(context.active(), fn);
    },
    shutdown: () => provider.shutdown(),
  };
}

function startRequest(tracer: Tracer, input: RequestTraceInput): RequestTrace {
  const parent = input.traceparent
    ? propagator.extract(ROOT_CONTEXT, { traceparent: input.traceparent }, defaultTextMapGetter)
    : ROOT_CONTEXT;
  const span = tracer.startSpan(
    `process ${input.operation}`,
    {
      kind: SpanKind.CONSUMER,
      attributes: {
        'messaging.system': 'kafka',
        'messaging.operation.type': 'process',
        'messaging.destination.name': input.topic,
        'messaging.destination.partition.id': String(input.partition),
        'messaging.kafka.offset': Number(input.offset),
        'verification.operation': input.operation,
      },
    },
    parent,
  );
  const own: Context = trace.setSpan(parent, span);
  const carrier: Record<string, string> = {};
  propagator.inject(own, carrier, defaultTextMapSetter);
  let ended = false;
  return {
    traceparent: carrier.traceparent,
    run: (fn) => context.with(own, fn),
    committed(commitStartedAt) {
      if (ended) return;
      ended = true;
      tracer
        .startSpan('kafka transaction', { kind: SpanKind.PRODUCER, startTime: commitStartedAt }, own)
        .end();
      span.end();
    },
    abandon(reason) {
      if (ended) return;
      ended = true;
      span.setAttribute('verification.abandoned', reason);
      span.end();
    },
  };
}
