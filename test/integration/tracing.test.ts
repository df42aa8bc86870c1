/**
 * OpenTelemetry tracing against the real stack: one request's spans, in the right parent/child
 * order under the upstream traceparent, seen by an in-memory exporter and by a real OTLP/HTTP
 * receiver (a local HTTP server taking the export).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { topicNames } from '../../src/contract/operations.js';
import { publish, summaryRequests } from '../helpers/service.js';
import { useTestKafka } from '../helpers/test-kafka.js';

const { kafka, onCleanup, start } = useTestKafka();

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const UPSTREAM_SPAN = '00f067aa0ba902b7';
const UPSTREAM = `00-${TRACE_ID}-${UPSTREAM_SPAN}-01`;

/** Keeps its spans past the service's stop (InMemorySpanExporter forgets them on shutdown). */
class KeepingExporter extends InMemorySpanExporter {
  override shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

interface FlatSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: string;
}

/** Runs one traced request through a service; returns the result's traceparent header. */
async function tracedRequest(name: string, env: Record<string, string>, spanExporter?: InMemorySpanExporter) {
  const { prefix, service, collector } = await start(name, {
    env,
    service: spanExporter ? { spanExporter } : {},
  });
  const [request] = summaryRequests(name, 1, 800);
  if (!request) throw new Error('no request');
  await publish(kafka, topicNames(prefix).request('lawsuits-summary'), [
    { ...request, headers: { traceparent: UPSTREAM } },
  ]);
  await collector.waitFor(() => collector.results().length === 1, 30_000, 'the result');
  // Stopping flushes the exporter (the batch processor holds spans for a few seconds).
  await service.stop();
  return { result: collector.results()[0], taxId: String(request.key) };
}

function expectRequestTree(spans: FlatSpan[], resultTraceparent: string | undefined, taxId: string): void {
  const root = spans.find((s) => s.name === 'process lawsuits-summary');
  expect(root, 'the request span').toBeDefined();
  expect(root?.traceId).toBe(TRACE_ID);
  expect(root?.parentSpanId).toBe(UPSTREAM_SPAN);
  // The outcome carries the request span's context.
  expect(resultTraceparent).toBe(`00-${TRACE_ID}-${root?.spanId}-01`);
  const children = spans.filter((s) => s.parentSpanId === root?.spanId).map((s) => s.name);
  expect(children).toEqual(
    expect.arrayContaining([
      'decode',
      'validate',
      'dedupe',
      'limiter wait',
      'vendor lawsuits-summary',
      'kafka transaction',
    ]),
  );
  for (const span of spans) {
    expect(span.traceId).toBe(TRACE_ID);
    expect(`${span.name} ${span.attributes}`).not.toContain(taxId);
  }
}

describe('tracing', () => {
  it('makes one span per request with its steps as children, under the upstream traceparent (in memory)', async () => {
    const exporter = new KeepingExporter();
    const { result, taxId } = await tracedRequest('tr-mem', {}, exporter);
    const spans: FlatSpan[] = exporter.getFinishedSpans().map((s) => ({
      name: s.name,
      traceId: s.spanContext().traceId,
      spanId: s.spanContext().spanId,
      parentSpanId: s.parentSpanContext?.spanId,
      attributes: JSON.stringify(s.attributes),
    }));
    expectRequestTree(spans, result?.headers.traceparent, taxId);
  });

  it('exports the same tree to an OTLP/HTTP receiver named by OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const bodies: { path: string; body: string }[] = [];
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    onCleanup(
      () =>
        new Promise<void>((resolve) =>
          receiver.close(() => {
            resolve();
          }),
        ),
    );
    const { port } = receiver.address() as AddressInfo;
    const { result, taxId } = await tracedRequest('tr-otlp', {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
    });
    expect(bodies.length).toBeGreaterThan(0);
    expect(bodies.every((b) => b.path === '/v1/traces')).toBe(true);
    const spans: FlatSpan[] = bodies.flatMap(({ body }) => {
      const parsed = JSON.parse(body) as {
        resourceSpans: {
          scopeSpans: {
            spans: {
              name: string;
              traceId: string;
              spanId: string;
              parentSpanId?: string;
              attributes: unknown;
            }[];
          }[];
        }[];
      };
      return parsed.resourceSpans.flatMap((r) =>
        r.scopeSpans.flatMap((s) =>
          s.spans.map((span) => ({
            name: span.name,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            attributes: JSON.stringify(span.attributes),
          })),
        ),
      );
    });
    expectRequestTree(spans, result?.headers.traceparent, taxId);
  });
});
