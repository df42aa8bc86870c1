import type { SpanExporter } from '@opentelemetry/sdk-trace-base';

/** A running service, as startService (main.ts) returns it. */
export interface Service {
  /** The public (webhook sink) port actually bound (useful with HTTP_PORT=0). */
  readonly httpPort: number;
  /** The admin (health, readiness, metrics) port actually bound. */
  readonly adminPort: number;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** Called when the runtime cannot go on; the CLI exits non-zero so the orchestrator restarts it. */
  onFatal?: (error: unknown) => void;
  /** Tests: receives every span (tracing is on with it even without an OTLP endpoint). */
  spanExporter?: SpanExporter;
}
