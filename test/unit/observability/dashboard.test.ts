import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createMetrics } from '../../../src/observability/metrics.js';

const FILES = join(import.meta.dirname, '..', '..', '..', 'helm', 'verification-gateway', 'files');

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}

const dashboard = JSON.parse(readFileSync(join(FILES, 'dashboard.json'), 'utf8')) as { panels: Panel[] };
const rules = parse(readFileSync(join(FILES, 'alerts.rules.yaml'), 'utf8')) as {
  groups: { rules: { alert: string; expr: string }[] }[];
};

/** Series names a PromQL expression reads (histogram series map to their metric). */
function metricNames(expr: string): string[] {
  const names = expr.match(/\b(?:verification|nodejs|process)_[a-z0-9_]+/g) ?? [];
  return names.map((name) => name.replace(/_(bucket|count|sum)$/, ''));
}

describe('the chart dashboard and alerts', () => {
  const exported = new Set(
    createMetrics()
      .registry.getMetricsAsArray()
      .map((metric) => metric.name),
  );
  const queries = [
    ...dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((t) => [`panel ${panel.title}`, t.expr]),
    ),
    ...rules.groups.flatMap((group) => group.rules.map((rule) => [`alert ${rule.alert}`, rule.expr])),
  ];

  it('name only metrics the service exports, in every query', () => {
    expect(queries.length).toBeGreaterThan(30);
    for (const [where, expr = ''] of queries) {
      const names = metricNames(expr);
      expect(names.length, `${where} reads no metric`).toBeGreaterThan(0);
      for (const name of names) expect(exported, `${where} reads ${name}`).toContain(name);
    }
  });

  it('cover every metric of the service and every alert the chart promises', () => {
    const read = new Set(queries.flatMap(([, expr = '']) => metricNames(expr)));
    for (const name of exported)
      if (name.startsWith('verification_')) expect(read, `nothing shows ${name}`).toContain(name);
    const alerts = rules.groups.flatMap((group) => group.rules.map((rule) => rule.alert));
    expect(alerts).toEqual(
      expect.arrayContaining([
        'VerificationBreakerOpen',
        'VerificationSpendCapNear',
        'VerificationSpendCapReached',
        'VerificationDeadLetters',
        'VerificationConsumerLagGrowing',
        'VerificationVendorRateLimited',
        'VerificationTransactionsFailing',
        'VerificationSearchesExpiring',
      ]),
    );
  });
});
