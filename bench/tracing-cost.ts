import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Admin, Kafka } from '../src/kafka/client.js';
import { measure } from './measure.js';
import { round, type Measured, type Scenario } from './scenario.js';

/**
 * BENCH_TRACING=1: the service again with traces exported over OTLP/HTTP to a sink in this
 * process that only acknowledges them, against the same run's untraced service.
 */
export async function tracingCost(kafka: Kafka, admin: Admin, scenario: Scenario, untraced: Measured) {
  const sink = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = sink.address() as AddressInfo;
    const traced = await measure(kafka, admin, scenario, 'service', {
      extraEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    });
    return {
      traced,
      cpuPer1000Ratio: round(traced.cpuSecondsPer1000 / untraced.cpuSecondsPer1000, 2),
      throughputRatio: round(traced.outcomesPerSecond / untraced.outcomesPerSecond, 2),
    };
  } finally {
    sink.close();
  }
}
