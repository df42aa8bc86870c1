import { describe, expect, it } from 'vitest';
import { createClockOffset } from '../../../src/limits/clock-offset.js';

describe('clock offset to Redis', () => {
  it('is 0 before any sample and takes the sample with the shortest round trip', () => {
    const clock = createClockOffset(5_000);
    expect(clock.offsetMs).toBe(0);
    // Local clock 250 ms ahead of Redis. A slow answer (read 40 ms late) misleads by 20 ms.
    clock.sample(10_000, 10_040, 9_750);
    expect(clock.offsetMs).toBe(270);
    clock.sample(10_100, 10_102, 9_851);
    expect(clock.offsetMs).toBe(250);
    clock.sample(10_200, 10_230, 9_950);
    expect(clock.offsetMs).toBe(250);
  });

  it('forgets samples older than the previous epoch, so a clock step is noticed', () => {
    const clock = createClockOffset(1_000);
    clock.sample(10_000, 10_001, 9_750); // offset 250.5, a fast round trip
    clock.sample(11_000, 11_020, 10_800); // next epoch, slower: the previous one still wins
    expect(clock.offsetMs).toBe(250.5);
    clock.sample(12_000, 12_020, 11_900); // two epochs on: only recent samples count
    expect(clock.offsetMs).toBe(110);
  });
});
