import { afterEach, describe, expect, it, vi } from 'vitest';
import { PauseControl } from '../../../src/consumers/pause-control.js';
import { SpendCapPauses } from '../../../src/consumers/spend-cap-pauses.js';

afterEach(() => {
  vi.useRealTimers();
});

function setup(held: number[]) {
  const pauses = new PauseControl({ pause: () => undefined, resume: () => undefined });
  const caps = new SpendCapPauses({
    pauses,
    topicsOf: (operation) => [`requests.${operation}`],
    partitionsOf: () => held,
  });
  const pausedFor = (partition: number) => pauses.isPausedFor('requests.vehicle', partition, 'spend-cap');
  return { caps, pausedFor };
}

describe('SpendCapPauses', () => {
  it("pauses an operation's partitions until the cap's hour is over", async () => {
    vi.useFakeTimers({ now: 0 });
    const { caps, pausedFor } = setup([0, 1]);
    caps.pauseUntil('vehicle', 1_000);
    expect([pausedFor(0), pausedFor(1)]).toEqual([true, true]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect([pausedFor(0), pausedFor(1)]).toEqual([false, false]);
  });

  it('pauses a partition that opens while the cap is reached, and not after', async () => {
    vi.useFakeTimers({ now: 0 });
    const held: number[] = [];
    const { caps, pausedFor } = setup(held);
    caps.pauseUntil('vehicle', 1_000);
    held.push(3);
    caps.opened('vehicle', 'requests.vehicle', 3);
    expect(pausedFor(3)).toBe(true);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(pausedFor(3)).toBe(false);
    caps.opened('vehicle', 'requests.vehicle', 3);
    expect(pausedFor(3)).toBe(false);
  });

  it('keeps the later of two resume times', async () => {
    vi.useFakeTimers({ now: 0 });
    const { caps, pausedFor } = setup([0]);
    caps.pauseUntil('vehicle', 2_000);
    caps.pauseUntil('vehicle', 1_000);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(pausedFor(0)).toBe(true);
    await vi.advanceTimersByTimeAsync(500);
    expect(pausedFor(0)).toBe(false);
  });
});
