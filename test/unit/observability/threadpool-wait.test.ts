import { execFileSync } from 'node:child_process';
import { open, openSync, closeSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../../../src/observability/metrics.js';
import { threadPoolWait, type PoolSubmit } from '../../../src/observability/threadpool-wait.js';

/** A pool whose tasks run only when the test says. */
function heldPool() {
  const held: (() => void)[] = [];
  const submit: PoolSubmit = (ran) => {
    held.push(ran);
  };
  return {
    submit,
    submitted: () => held.length,
    runAll: () => {
      for (const ran of held.splice(0)) ran();
    },
  };
}

describe("the thread pool's wait", () => {
  it('reads how long a task waited, and while it has not run, how long it has waited so far', async () => {
    let clock = 0;
    const pool = heldPool();
    const wait = threadPoolWait({ boundMs: 5, submit: pool.submit, now: () => clock });
    const first = wait();
    clock = 2_000;
    expect(await first).toBe(2);
    clock = 65_000;
    // The same task, still waiting: no second one is queued behind it.
    expect(await wait()).toBe(65);
    expect(pool.submitted()).toBe(1);
    pool.runAll();
    // The next scrape gives a new task, which runs at once.
    const next = wait();
    clock = 65_010;
    pool.runAll();
    expect(await next).toBe(0.01);
    expect(pool.submitted()).toBe(0);
  });

  it('reads the real pool taken: every thread blocked, then freed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pool-'));
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    // Opening a FIFO for reading blocks the pool thread that runs it until a writer opens it.
    const threads = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const blocked = Array.from(
      { length: threads },
      () =>
        new Promise<number>((resolve, reject) => {
          open(fifo, 'r', (error, fd) => {
            if (error) reject(error);
            else resolve(fd);
          });
        }),
    );
    try {
      const wait = threadPoolWait({ boundMs: 200 });
      expect(await wait()).toBeGreaterThanOrEqual(0.2);
      // A writer lets every blocked open return; the probe's task then runs.
      const writer = openSync(fifo, 'w');
      const fds = await Promise.all(blocked);
      closeSync(writer);
      for (const fd of fds) closeSync(fd);
      // Freed: a task runs within the bound again (asked again while a busy machine delays it).
      await vi.waitFor(
        async () => {
          expect(await wait()).toBeLessThan(0.2);
        },
        { timeout: 10_000, interval: 100 },
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('is exported as verification_threadpool_wait_seconds', async () => {
    const { registry } = createMetrics();
    const text = await registry.metrics();
    const line = text.split('\n').find((l) => l.startsWith('verification_threadpool_wait_seconds '));
    const value = Number(line?.split(' ')[1]);
    expect(Number.isFinite(value) && value >= 0).toBe(true);
  });
});
