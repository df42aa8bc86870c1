/**
 * The chart's pod, as `helm template` renders it, turned into `docker run` flags: the user, the
 * read-only root file system, the dropped capabilities, no privilege escalation, the ConfigMap
 * and the env entries as environment, the Secret keys as files where the pod mounts them, and
 * the probes on the admin port. The container test runs the image with these, so a change to
 * the chart that the image cannot honour (or the reverse) fails it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const CHART = join(ROOT, 'helm', 'verification-gateway');

interface Probe {
  httpGet: { path: string; port: string | number };
}
interface Container {
  image: string;
  args?: string[];
  envFrom?: { configMapRef?: { name: string } }[];
  env?: { name: string; value?: string }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  ports?: { name: string; containerPort: number }[];
  livenessProbe: Probe;
  readinessProbe: Probe;
  securityContext: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface Manifest {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    template: {
      spec: {
        terminationGracePeriodSeconds: number;
        securityContext: { runAsUser: number; runAsGroup: number; fsGroup?: number };
        volumes: { name: string; secret?: { items?: { key: string; path: string }[] } }[];
        containers: Container[];
      };
    };
  };
}

export interface PodRun {
  image: string;
  /** `docker run` flags for the user and the security context. */
  securityFlags: string[];
  user: { uid: number; gid: number; fsGroup: number | undefined };
  readOnlyRootFilesystem: boolean;
  dropCapabilities: string[];
  /** The ConfigMap (envFrom) and the env entries, in that order. */
  env: Record<string, string>;
  /** Secret files the pod mounts: the directory and the file names in it. */
  secretMounts: { mountPath: string; files: string[] }[];
  args: string[];
  adminPort: number;
  readinessPath: string;
  livenessPath: string;
  terminationGracePeriodSeconds: number;
}

/** helm from the PATH or where scripts/check-helm.sh builds it (`go install`). */
export function helmBinary(): string {
  const candidates = [process.env.HELM ?? ''];
  for (const dir of (process.env.PATH ?? '').split(':')) candidates.push(join(dir, 'helm'));
  try {
    const gopath = execFileSync('go', ['env', 'GOPATH'], { encoding: 'utf8' }).trim();
    candidates.push(join(gopath, 'bin', 'helm'));
  } catch {
    // no Go
  }
  const found = candidates.find((c) => c !== '' && existsSync(c));
  if (!found) {
    throw new Error(
      'helm is needed to render the pod spec: bash scripts/check-helm.sh builds it (or set HELM)',
    );
  }
  return found;
}

export function renderPod(sets: Record<string, string>): PodRun {
  const args = ['template', 'image-test', CHART];
  for (const [name, value] of Object.entries(sets)) args.push('--set', `${name}=${value}`);
  const out = execFileSync(helmBinary(), args, { encoding: 'utf8' });
  const docs = parseAllDocuments(out).map((d) => d.toJS() as Manifest | null);
  const deployment = docs.find((d) => d?.kind === 'Deployment');
  if (!deployment?.spec) throw new Error('helm template rendered no Deployment');
  const pod = deployment.spec.template.spec;
  const [container] = pod.containers;
  if (!container) throw new Error('the Deployment has no container');
  const configMaps = new Map(
    docs.filter((d) => d?.kind === 'ConfigMap').map((d) => [d!.metadata.name, d!.data ?? {}]),
  );

  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const name = from.configMapRef?.name;
    if (name === undefined) throw new Error('envFrom other than a ConfigMap is not handled');
    Object.assign(env, configMaps.get(name) ?? {});
  }
  for (const entry of container.env ?? []) {
    if (entry.value === undefined) throw new Error(`env ${entry.name} has no plain value`);
    env[entry.name] = entry.value;
  }

  const secretMounts = (container.volumeMounts ?? []).flatMap((mount) => {
    const volume = pod.volumes.find((v) => v.name === mount.name);
    if (!volume?.secret) return [];
    if (mount.readOnly !== true) throw new Error(`secret volume ${mount.name} is not mounted read-only`);
    return [{ mountPath: mount.mountPath, files: (volume.secret.items ?? []).map((i) => i.path) }];
  });

  const portOf = (probe: Probe): number => {
    const { port } = probe.httpGet;
    if (typeof port === 'number') return port;
    const named = container.ports?.find((p) => p.name === port);
    if (!named) throw new Error(`probe port ${port} names no container port`);
    return named.containerPort;
  };
  const adminPort = portOf(container.readinessProbe);
  if (portOf(container.livenessProbe) !== adminPort) throw new Error('the probes use different ports');

  const ctx = container.securityContext;
  const user = {
    uid: pod.securityContext.runAsUser,
    gid: pod.securityContext.runAsGroup,
    fsGroup: pod.securityContext.fsGroup,
  };
  const dropCapabilities = ctx.capabilities?.drop ?? [];
  const securityFlags = [
    '--user',
    `${user.uid}:${user.gid}`,
    ...(user.fsGroup === undefined ? [] : ['--group-add', String(user.fsGroup)]),
    ...(ctx.readOnlyRootFilesystem === true ? ['--read-only'] : []),
    ...dropCapabilities.flatMap((c) => ['--cap-drop', c]),
    ...(ctx.allowPrivilegeEscalation === false ? ['--security-opt', 'no-new-privileges'] : []),
  ];
  return {
    image: container.image,
    securityFlags,
    user,
    readOnlyRootFilesystem: ctx.readOnlyRootFilesystem === true,
    dropCapabilities,
    env,
    secretMounts,
    args: container.args ?? [],
    adminPort,
    readinessPath: container.readinessProbe.httpGet.path,
    livenessPath: container.livenessProbe.httpGet.path,
    terminationGracePeriodSeconds: pod.terminationGracePeriodSeconds,
  };
}
