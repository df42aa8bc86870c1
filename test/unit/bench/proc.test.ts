import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  brokerPorts,
  connectionsTo,
  establishedInodes,
  ioSyscalls,
  metricSum,
  socketInode,
  statCpuSeconds,
  statusMiB,
  syscallsOf,
} from '../../../bench/proc.js';

const TCP_TABLE = [
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
  '   0: 0100007F:2384 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0 100 0 0 10 0',
  '   1: 0100007F:D431 0100007F:2384 01 00000000:00000000 00:00000000 00000000     0        0 1002 1 0 20 4 30 10 -1',
  '   2: 0100007F:D432 0100007F:2384 06 00000000:00000000 00:00000000 00000000     0        0 0 1 0 20 4 30 10 -1',
  '   3: 0100007F:D433 0100007F:1F90 01 00000000:00000000 00:00000000 00000000     0        0 1004 1 0 20 4 30 10 -1',
  '   4: 0100007F:2384 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 1005 1 0 20 4 30 10 -1',
  '',
].join('\n');

describe('/proc parsing for the benchmark', () => {
  it('adds user and system ticks of /proc/<pid>/stat, even when the command name holds ") "', () => {
    const rest = 'S 1 2 3 4 5 6 7 8 9 10 250 150 0 0 20 0 1';
    expect(statCpuSeconds(`1234 (node) ${rest}`)).toBe(4);
    expect(statCpuSeconds(`1234 (a) b) ${rest}`)).toBe(4);
  });

  it('reads VmRSS and VmHWM of /proc/<pid>/status in MiB', () => {
    const status = 'Name:\tnode\nVmHWM:\t  204800 kB\nVmRSS:\t  102400 kB\n';
    expect(statusMiB(status, 'VmHWM')).toBe(200);
    expect(statusMiB(status, 'VmRSS')).toBe(100);
    expect(statusMiB('Name:\tkthread\n', 'VmRSS')).toBeNaN();
  });

  it('keeps the established connections to the given remote ports only', () => {
    // 0x2384 = 9092: listening (0A), established (01), time-wait (06); 0x1F90 = 8080; and a
    // socket whose LOCAL port is 9092 (the broker's side), which is not a connection to it.
    expect(establishedInodes(TCP_TABLE, [9092])).toEqual(new Set(['1002']));
    expect(establishedInodes(TCP_TABLE, [9092, 8080])).toEqual(new Set(['1002', '1004']));
    expect(establishedInodes(TCP_TABLE, [9999])).toEqual(new Set());
  });

  it('reads the inode of a socket descriptor and nothing else', () => {
    expect(socketInode('socket:[1002]')).toBe('1002');
    expect(socketInode('pipe:[1002]')).toBeUndefined();
    expect(socketInode('/dev/null')).toBeUndefined();
  });

  it('takes the ports of a broker list', () => {
    expect(brokerPorts('127.0.0.1:9092,broker-2:19092')).toEqual([9092, 19092]);
  });
});

describe('connectionsTo on a real process (this one)', () => {
  let server: Server | undefined;
  const clients: Socket[] = [];
  afterEach(async () => {
    for (const client of clients.splice(0)) client.destroy();
    await new Promise((resolve) => server?.close(resolve));
  });

  it('counts this process\u2019s established connections to a port', async () => {
    server = createServer();
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    expect(connectionsTo(process.pid, [port])).toBe(0);
    for (let i = 0; i < 3; i += 1) {
      const client = connect(port, '127.0.0.1');
      clients.push(client);
      await new Promise((resolve) => client.once('connect', resolve));
    }
    // The server's accepted sockets have the port as their local one: not counted.
    expect(connectionsTo(process.pid, [port])).toBe(3);
  });
});

describe('ioSyscalls', () => {
  const io = [
    'rchar: 26776550',
    'wchar: 58749479',
    'syscr: 72294',
    'syscw: 68029',
    'read_bytes: 36864',
    'write_bytes: 0',
    'cancelled_write_bytes: 0',
    '',
  ].join('\n');

  it('reads the read and write system calls of /proc/<pid>/io', () => {
    expect(ioSyscalls(io)).toEqual({ reads: 72294, writes: 68029 });
  });

  it('refuses a text without them rather than count nothing', () => {
    expect(() => ioSyscalls('rchar: 1\nwchar: 2\n')).toThrow(/syscr/);
  });

  it('counts this process\u2019s writes as it makes them', async () => {
    const before = syscallsOf(process.pid);
    const { writeSync, openSync, closeSync } = await import('node:fs');
    const fd = openSync('/dev/null', 'w');
    for (let i = 0; i < 10; i++) writeSync(fd, 'x');
    closeSync(fd);
    expect(syscallsOf(process.pid).writes - before.writes).toBeGreaterThanOrEqual(10);
  });
});

describe('metricSum', () => {
  const text = [
    '# HELP verification_transactions_committed_total Kafka transactions committed',
    '# TYPE verification_transactions_committed_total counter',
    'verification_transactions_committed_total 42',
    'verification_transactions_committed_total_extra 1000',
    'verification_partitions_assigned{topic="t.requests.vehicle"} 3',
    'verification_partitions_assigned{topic="t.requests.lawsuits-summary"} 2.5e1',
    '',
  ].join('\n');

  it('sums every label set of one metric, ignoring comments and longer names', () => {
    expect(metricSum(text, 'verification_transactions_committed_total')).toBe(42);
    expect(metricSum(text, 'verification_partitions_assigned')).toBe(28);
  });

  it('is 0 for a metric not exported yet', () => {
    expect(metricSum(text, 'verification_transactions_aborted_total')).toBe(0);
  });
});
