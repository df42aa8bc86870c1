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

interface Variable {
  name: string;
  type: string;
  query?: unknown;
  datasource?: { type?: string; uid?: string };
  includeAll?: boolean;
  allValue?: string;
}

const dashboard = JSON.parse(readFileSync(join(FILES, 'dashboard.json'), 'utf8')) as {
  panels: Panel[];
  templating: { list: Variable[] };
};
const rules = parse(readFileSync(join(FILES, 'alerts.rules.yaml'), 'utf8')) as {
  groups: { rules: { alert: string; expr: string }[] }[];
};

/** Series names a PromQL expression reads (histogram series map to their metric). */
function metricNames(expr: string): string[] {
  const names = expr.match(/\b(?:verification|nodejs|process)_[a-z0-9_]+/g) ?? [];
  return names.map((name) => name.replace(/_(bucket|count|sum)$/, ''));
}

/** Each series selector of a PromQL expression: the metric with its matchers, if any. */
function selectors(expr: string): { name: string; matchers: string }[] {
  return [...expr.matchAll(/\b((?:verification|nodejs|process)_[a-z0-9_]+)(?:\{([^}]*)\})?/g)].map(
    ([, name = '', matchers = '']) => ({ name, matchers }),
  );
}

/** The label lists of an expression's `by (...)` and `on (...)` clauses. */
function groupings(expr: string): string[][] {
  return [...expr.matchAll(/\b(?:by|on)\s*\(([^)]*)\)/g)].map(([, labels = '']) =>
    labels.split(',').map((label) => label.trim()),
  );
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
        'VerificationHangingTransaction',
        'VerificationThreadPoolStarved',
      ]),
    );
  });

  // One Prometheus may scrape several deployments (staging and prod, several teams): the
  // dashboard shows the namespaces chosen, and each alert is one namespace's.
  it('offer a namespace variable, All matching every series, including ones with no namespace', () => {
    const variable = dashboard.templating.list.find((v) => v.name === 'namespace');
    expect(variable, 'no namespace variable').toBeDefined();
    expect(variable).toMatchObject({
      type: 'query',
      query: 'label_values(verification_requests_in_flight, namespace)',
      datasource: { type: 'prometheus', uid: '${datasource}' },
      includeAll: true,
      allValue: '.*',
    });
  });

  it('filter every panel query on the namespace variable', () => {
    const targets = dashboard.panels.flatMap((panel) =>
      (panel.targets ?? []).map((t) => [panel.title, t.expr] as const),
    );
    expect(targets.length).toBeGreaterThan(30);
    for (const [title, expr] of targets)
      for (const { name, matchers } of selectors(expr))
        expect(matchers, `panel ${title}: ${name} is not filtered on $namespace`).toMatch(
          /(^|,)\s*namespace=~"\$namespace"\s*(,|$)/,
        );
  });

  it('keep the namespace in every aggregation and vector match of the alerts', () => {
    const alerts = rules.groups.flatMap((group) => group.rules);
    // absent() has no series to group: it covers no replica of any deployment scraped.
    for (const { alert, expr } of alerts.filter((rule) => rule.alert !== 'VerificationGatewayAbsent')) {
      const aggregations = expr.match(/\b(?:sum|max|min|avg|count|group)\b\s*(?:by\b|\()/g) ?? [];
      const clauses = groupings(expr);
      expect(aggregations.length, `alert ${alert} aggregates nothing`).toBeGreaterThan(0);
      expect(
        aggregations.every((aggregation) => aggregation.trimEnd().endsWith('by')),
        `alert ${alert} aggregates without by (...)`,
      ).toBe(true);
      for (const labels of clauses)
        expect(labels, `alert ${alert}: by/on (${labels.join(', ')})`).toContain('namespace');
    }
  });
});
