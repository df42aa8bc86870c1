/**
 * The OpenTelemetry SDK side of tracing.ts, imported by createTracing only when spans have
 * somewhere to go.
 */
import {
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { RequestTrace, RequestTraceInput, Tracing, TracingSettings } from './tracing.js';

const propagator = new W3CTraceContextPropagator();
let contextManagerSet = false;

/** The tracing of createTracing, once something would receive the spans. */
export function createSdkTracing(settings: TracingSettings): Tracing {
  const processors: SpanProcessor[] = [];
  if (settings.exporter) processors.push(new SimpleSpanProcessor(settings.exporter));
  if (settings.otlpTracesEndpoint)
    processors.push(new BatchSpanProcessor(new OTLPTraceExporter({ url: settings.otlpTracesEndpoint })));
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
