/**
 * Self time of a V8 CPU profile (`node --cpu-prof`), summed by module and by function: where a
 * process's busy time went, without a profiler UI. Modules are node_modules packages, the
 * service's own source directories, node's internals, and V8's own entries (garbage collector,
 * program, idle).
 *
 *   npx tsx bench/profile-summary.ts CPU.20261128.cpuprofile [more.cpuprofile] [--top 25]
 *
 * Shares are of the busy time (idle left out). Two profiles print side by side, the second's
 * shares and its self time per the first's.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTimes {
  busyMs: number;
  byModule: Map<string, number>;
  byFunction: Map<string, number>;
}

/** The module a frame's URL belongs to. */
export function moduleOf(url: string, functionName: string): string {
  if (url === '') return `(${functionName.replace(/[()]/g, '') || 'native'})`;
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packaged?.[1]) return packaged[1];
  // node:internal/crypto/cipher and the like: the subsystem tells more than node:internal.
  if (url.startsWith('node:')) return url.split('/').slice(0, 3).join('/');
  const own = /\/(?:dist\/)?(src|bench)\/(.*?)[^/]+$/.exec(url);
  return own ? `${own[1]}/${own[2]}`.replace(/\/$/, '') : url;
}

export function selfTimes(profile: CpuProfile): SelfTimes {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let busyMs = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node) return;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') return;
    busyMs += ms;
    const module = moduleOf(url, functionName);
    byModule.set(module, (byModule.get(module) ?? 0) + ms);
    const file = url.split('/').pop() ?? '';
    const name = `${functionName || '(anonymous)'} ${file === '' ? module : `${module}/${file}`}:${lineNumber + 1}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + ms);
  });
  return { busyMs, byModule, byFunction };
}

function table(
  title: string,
  first: Map<string, number>,
  busy: number,
  top: number,
  other?: SelfTimes,
): string[] {
  const otherMap = other ? (title === 'module' ? other.byModule : other.byFunction) : undefined;
  const lines = [`by ${title} (share of busy time${other ? '; second profile beside' : ''}):`];
  const rows = [...first.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [name, ms] of rows) {
    const share = ((ms / busy) * 100).toFixed(1).padStart(5);
    const beside =
      other && otherMap
        ? `  ${(((otherMap.get(name) ?? 0) / other.busyMs) * 100).toFixed(1).padStart(5)}%`
        : '';
    lines.push(`  ${share}%${beside}  ${name}`);
  }
  return lines;
}

function main(args: string[]): void {
  const topAt = args.indexOf('--top');
  const top = topAt >= 0 ? Number(args[topAt + 1]) : 25;
  const files = args.filter((arg, i) => !arg.startsWith('--') && (topAt < 0 || i !== topAt + 1));
  const [first, second] = files.map((file) =>
    selfTimes(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile),
  );
  if (!first) throw new Error('usage: profile-summary.ts <profile.cpuprofile> [second] [--top N]');
  console.log(`busy ${first.busyMs.toFixed(0)} ms${second ? `, second ${second.busyMs.toFixed(0)} ms` : ''}`);
  console.log(table('module', first.byModule, first.busyMs, top, second).join('\n'));
  console.log(table('function', first.byFunction, first.busyMs, top, second).join('\n'));
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
