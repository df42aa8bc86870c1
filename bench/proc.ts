/**
 * What /proc and a Prometheus endpoint say about one process, as pure parsers of their text
 * (unit-tested) and thin readers around them.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

const TICKS_PER_SECOND = 100;
const TCP_ESTABLISHED = '01';

/** User + system CPU seconds in the text of /proc/<pid>/stat. */
export function statCpuSeconds(stat: string): number {
  // The command name (field 2) may hold spaces and parentheses: count from its closing one.
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** A kB figure of /proc/<pid>/status (VmRSS, VmHWM) in MiB. */
export function statusMiB(status: string, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(status);
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/**
 * Socket inodes of the ESTABLISHED connections to any of `remotePorts` in a /proc/net/tcp or
 * tcp6 table (the table lists every socket of the network namespace, not one process's).
 */
export function establishedInodes(table: string, remotePorts: readonly number[]): Set<string> {
  const inodes = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    const remote = fields[2];
    if (!remote || fields[3] !== TCP_ESTABLISHED) continue;
    const port = Number.parseInt(remote.slice(remote.lastIndexOf(':') + 1), 16);
    if (remotePorts.includes(port) && fields[9]) inodes.add(fields[9]);
  }
  return inodes;
}

/** The inode of a socket file descriptor's link text (`socket:[12345]`), else undefined. */
export function socketInode(link: string): string | undefined {
  return /^socket:\[(\d+)\]$/.exec(link)?.[1];
}

/** The process's established TCP connections to any of `remotePorts` (its own sockets only). */
export function connectionsTo(pid: number, remotePorts: readonly number[]): number {
  const established = new Set<string>();
  for (const table of ['tcp', 'tcp6']) {
    try {
      for (const inode of establishedInodes(readFileSync(`/proc/${pid}/net/${table}`, 'utf8'), remotePorts))
        established.add(inode);
    } catch {
      // no IPv6 table on this machine
    }
  }
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let link: string;
    try {
      link = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed since the listing
    }
    const inode = socketInode(link);
    if (inode && established.has(inode)) count += 1;
  }
  return count;
}

/**
 * The read and write system calls counted in the text of /proc/<pid>/io (syscr, syscw): every
 * socket read and write, which is where a paced request's cost goes on loopback.
 */
export function ioSyscalls(io: string): { reads: number; writes: number } {
  const field = (name: string): number => {
    const match = new RegExp(`^${name}:\\s+(\\d+)$`, 'm').exec(io);
    if (!match) throw new Error(`no ${name} in /proc/<pid>/io`);
    return Number(match[1]);
  };
  return { reads: field('syscr'), writes: field('syscw') };
}

/** The process's read and write system calls so far. */
export function syscallsOf(pid: number): { reads: number; writes: number } {
  return ioSyscalls(readFileSync(`/proc/${pid}/io`, 'utf8'));
}

/** The ports of a `host:port,host:port` broker list. */
export function brokerPorts(brokers: string): number[] {
  return brokers.split(',').map((broker) => Number(broker.slice(broker.lastIndexOf(':') + 1)));
}

/** The sum of a metric's samples (every label set) in Prometheus text format; 0 when absent. */
export function metricSum(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    const value = Number(rest.slice(rest.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}
