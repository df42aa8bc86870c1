import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// The chart's values against its values.schema.json (draft-07, which Helm checks on lint, template
// and install), and what its templates and the Dockerfile promise each other. Rendering is
// scripts/check-helm.sh's job: it needs helm, which unit tests do not build.
const ROOT = join(import.meta.dirname, '..', '..');
const CHART = join(ROOT, 'helm', 'verification-gateway');
const read = (...path: string[]) => readFileSync(join(...path), 'utf8');

type Values = Record<string, unknown>;
const defaults = parse(read(CHART, 'values.yaml')) as Values;
const schema = JSON.parse(read(CHART, 'values.schema.json')) as Record<string, unknown>;
const validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(schema);

/** The default values with `path` (dotted) set to `value`, as `helm --set path=value` would. */
function withValue(path: string, value: unknown): Values {
  const values = structuredClone(defaults);
  const keys = path.split('.');
  let node = values;
  for (const key of keys.slice(0, -1)) node = node[key] as Values;
  node[keys.at(-1)!] = value;
  return values;
}

function errors(values: Values): string {
  validate(values);
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`).join('; ');
}

describe('the chart values schema', () => {
  it('is draft-07 and accepts the default values', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(errors(defaults)).toBe('');
  });

  it.each([
    ['replicaCount', 'abc'],
    ['replicaCount', 1.5],
    ['replicaCount', -1],
    ['service.port', -1],
    ['service.port', 70_000],
    ['service.port', '8080'],
    ['admin.port', 0],
    ['networkPolicy.dnsPort', -53],
    ['networkPolicy.egress', [{ ports: [{ port: -9093 }] }]],
    ['podDisruptionBudget.maxUnavailable', 0],
    ['podDisruptionBudget.maxUnavailable', '0%'],
    ['image.pullPolicy', 'Sometimes'],
    ['image.tag', 1.1],
    ['image.digest', 'latest'],
    ['console.enabled', 'yes'],
    ['config.SHUTDOWN_TIMEOUT_MS', '25s'],
    ['podAnnotations', { 'prometheus.io/port': 9090 }],
    // Retired and misspelt keys fail instead of being ignored.
    ['podDisruptionBudget.minAvailable', 1],
    ['networkPolicy.ingressPorts', [8080, 9090]],
    ['replicas', 2],
  ])('refuses %s = %j', (path, value) => {
    expect(errors(withValue(path, value))).not.toBe('');
  });

  it.each([
    ['replicaCount', 1],
    ['replicaCount', 0],
    ['podDisruptionBudget.maxUnavailable', '50%'],
    ['podDisruptionBudget.enabled', false],
    ['service.port', 8081],
    // `helm --set config.X=10` gives a number; the ConfigMap quotes it.
    ['config.VENDOR_RATE_PER_SECOND', 10],
    ['config.SHUTDOWN_TIMEOUT_MS', 30_000],
    ['image.digest', `sha256:${'0'.repeat(64)}`],
    ['console.operatorTokenKey', ''],
    ['global', { imageRegistry: 'registry.example' }],
  ])('accepts %s = %j', (path, value) => {
    expect(errors(withValue(path, value))).toBe('');
  });
});

describe('the chart templates', () => {
  it('let a drain evict a pod at one replica: maxUnavailable, never minAvailable', () => {
    const pdb = read(CHART, 'templates', 'pdb.yaml');
    expect(pdb).toContain('maxUnavailable: {{ .Values.podDisruptionBudget.maxUnavailable }}');
    expect(pdb).not.toMatch(/^\s*minAvailable:/m);
    expect(defaults.podDisruptionBudget).toEqual({ enabled: true, maxUnavailable: 1 });
  });

  it('take every NetworkPolicy port from the values the Deployment and Service use', () => {
    const policy = read(CHART, 'templates', 'networkpolicy.yaml');
    const ports = [...policy.matchAll(/\bport: (.+?), protocol/g)].map((m) => m[1]);
    expect(ports).toEqual([
      '{{ .Values.service.port }}',
      '{{ .Values.admin.port }}',
      '{{ .Values.networkPolicy.dnsPort }}',
      '{{ .Values.networkPolicy.dnsPort }}',
    ]);
    const deployment = read(CHART, 'templates', 'deployment.yaml');
    expect(deployment).toContain('containerPort: {{ .Values.service.port }}');
    expect(deployment).toContain('containerPort: {{ .Values.admin.port }}');
  });

  it('admit the public and the admin port in rules of their own, with their own peers (issue 39, N3)', () => {
    const policy = read(CHART, 'templates', 'networkpolicy.yaml');
    // The public port's rule takes ingressFrom, the admin port's adminFrom; neither lists both ports.
    expect(policy).toMatch(
      /- ports:\n\s+- \{ port: \{\{ \.Values\.service\.port \}\}, protocol: TCP \}\n\s+\{\{- with \.Values\.networkPolicy\.ingressFrom \}\}/,
    );
    expect(policy).toMatch(
      /- ports:\n\s+- \{ port: \{\{ \.Values\.admin\.port \}\}, protocol: TCP \}\n\s+from: \{\{- toYaml \.Values\.networkPolicy\.adminFrom /,
    );
    expect(errors(withValue('networkPolicy.adminFrom', [{ podSelector: {} }]))).toBe('');
  });

  it('bind the admin listener to the pod address, the service defaulting to loopback (issue 39, N3)', () => {
    expect(read(CHART, 'templates', 'configmap.yaml')).toMatch(/^ {2}ADMIN_HOST: "0\.0\.0\.0"$/m);
  });

  it('run the pod as the numeric user the Dockerfile runs as, which runAsNonRoot can verify', () => {
    const user = /^USER (\S+)$/m.exec(read(ROOT, 'Dockerfile'))?.[1];
    expect(user).toMatch(/^\d+:\d+$/);
    const [uid, gid] = user!.split(':');
    expect(uid).not.toBe('0');
    const context = /^ {6}securityContext:\n((?: {8}.*\n)+)/m.exec(
      read(CHART, 'templates', 'deployment.yaml'),
    );
    const pod = context?.[1] ?? '';
    expect(pod).toMatch(/^ {8}runAsNonRoot: true$/m);
    expect(pod).toMatch(new RegExp(`^ {8}runAsUser: ${uid}$`, 'm'));
    expect(pod).toMatch(new RegExp(`^ {8}runAsGroup: ${gid}$`, 'm'));
  });
});
