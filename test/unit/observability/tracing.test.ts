import { describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { otlpTracesEndpoint } from '../../../src/service/settings.js';
import { createTracing } from '../../../src/observability/tracing.js';

const base = {
  KAFKA_BROKERS: '127.0.0.1:9092',
  VENDOR_BASE_URL: 'http://127.0.0.1:8090',
  ALLOW_INSECURE_VENDOR: 'true',
  VENDOR_API_KEY: 'k',
};
const endpoint = (env: Record<string, string>) => otlpTracesEndpoint(loadConfig({ ...base, ...env }));

describe('tracing settings', () => {
  it('exports nothing unless an exporter is configured', async () => {
    expect(endpoint({})).toBeUndefined();
    expect(await createTracing({ serviceName: 's', otlpTracesEndpoint: endpoint({}) })).toBeUndefined();
  });

  it('loads the OpenTelemetry SDK only when spans have somewhere to go', async () => {
    vi.resetModules();
    const loaded = vi.fn();
    vi.doMock('../../../src/observability/tracing-sdk.js', () => {
      loaded();
      return { createSdkTracing: () => ({ shutdown: () => Promise.resolve() }) };
    });
    try {
      const fresh = await import('../../../src/observability/tracing.js');
      expect(await fresh.createTracing({ serviceName: 's' })).toBeUndefined();
      expect(loaded).not.toHaveBeenCalled();
      expect(
        await fresh.createTracing({
          serviceName: 's',
          otlpTracesEndpoint: 'http://127.0.0.1:4318/v1/traces',
        }),
      ).toBeDefined();
      expect(loaded).toHaveBeenCalledTimes(1);
    } finally {
      vi.doUnmock('../../../src/observability/tracing-sdk.js');
      vi.resetModules();
    }
  });

  it('follows the OTEL_* rules for the OTLP/HTTP traces endpoint', () => {
    expect(endpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(
      endpoint({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://other:4318/traces',
      }),
    ).toBe('http://other:4318/traces');
    expect(endpoint({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe('http://localhost:4318/v1/traces');
    expect(
      endpoint({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBeUndefined();
    expect(
      endpoint({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' }),
    ).toBeUndefined();
  });

  it('stops start-up naming a bad OTEL setting', () => {
    expect(() => loadConfig({ ...base, OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/^OTEL_TRACES_EXPORTER: /);
  });
});
