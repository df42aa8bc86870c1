/**
 * The service's group offsets reader also reads topics' ends for the lag (ListOffsets through an
 * admin client sharing its consumer's handle). Stopping the service while a lag read ran
 * destroyed the handle under the native call: SIGSEGV in NodeKafka::AdminClient::ListOffsets,
 * the test worker gone (seen in test/integration/metrics.test.ts). close() now waits for the
 * calls under way and refuses new ones. Run in a child process, so that a crash fails this test
 * instead of taking its worker down; the old code crashed in the first of five rounds.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

const SCRIPT = `
import { openGroupOffsetsReader } from './src/kafka/client.js';
const brokers = process.argv[1].split(',');
for (let round = 0; round < 5; round++) {
  const reader = await openGroupOffsetsReader({ brokers }, 'closed-mid-read', { stable: false, timeoutMs: 5000 });
  const reads = [
    reader.fetchTopicOffsets('__consumer_offsets'),
    reader.fetchOffsets({ groupId: 'closed-mid-read', topics: ['__consumer_offsets'] }),
    reader.partitionsOf('__consumer_offsets'),
  ].map((read) => read.then(() => 'answered', (error) => String(error)));
  await new Promise((resolve) => setTimeout(resolve, round * 2));
  await reader.close();
  console.log(JSON.stringify(await Promise.all(reads)));
}
console.log('done');
`;

describe('a group offsets reader closed while it reads', () => {
  it('ends each read (answered or refused) and never crashes the process', async () => {
    const child = spawn(
      join(ROOT, 'node_modules', '.bin', 'node'),
      ['--import', 'tsx', '--input-type=module', '-e', SCRIPT, inject('kafkaBrokers')],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.once('exit', (c, s) => {
        resolve([c, s]);
      }),
    );
    expect({ code, signal }, `${stdout}\n${stderr}`).toEqual({ code: 0, signal: null });
    const rounds = stdout
      .split('\n')
      .filter((line) => line.startsWith('['))
      .map((line) => JSON.parse(line) as string[]);
    expect(rounds).toHaveLength(5);
    for (const reads of rounds)
      for (const read of reads) expect(read).toMatch(/^(answered|Error: the client is closed)$/);
    expect(stdout).toContain('done');
  });
});
