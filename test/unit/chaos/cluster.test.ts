import { describe, expect, it } from 'vitest';
import { javaHashCode, transactionStatePartition } from '../../../chaos/cluster.js';
import { longestStall, stallsPerFault } from '../../../chaos/report.js';

describe('the transaction coordinator of a transactional id', () => {
  it("hashes as Java's String.hashCode does", () => {
    expect(javaHashCode('abc')).toBe(96354);
    expect(javaHashCode('hello')).toBe(99162322);
    // Overflows to Integer.MIN_VALUE, whose abs Kafka's Utils.abs maps to 0.
    expect(javaHashCode('polygenelubricants')).toBe(-2147483648);
  });

  it("is the __transaction_state partition Kafka's Utils.abs(hashCode) % partitions names", () => {
    expect(transactionStatePartition('abc', 10)).toBe(4);
    expect(transactionStatePartition('polygenelubricants', 10)).toBe(0);
    // A negative hash: Java's 'Hello World'.hashCode() is -862545276.
    expect(javaHashCode('Hello World')).toBe(-862545276);
    expect(transactionStatePartition('Hello World', 10)).toBe(6);
  });
});

describe('the longest stall of outcomes after a fault', () => {
  it('counts from the fault to the first outcome, then between outcomes, in arrival order', () => {
    expect(longestStall([5_000, 1_000, 9_000, 30_000, 31_000], 2_000)).toBe(21_000);
    expect(longestStall([1_000, 2_500, 2_600], 2_000)).toBe(500);
  });

  it('is nothing when no outcome came after the fault', () => {
    expect(longestStall([1_000], 2_000)).toBe(0);
  });
});

describe('the stall of each fault', () => {
  it('counts from the last outcome before the fault until the next fault, each fault on its own', () => {
    // Faults at 10 s and 40 s: outcomes stop at 9 s until 25 s, then at 39 s until 41 s.
    const outcomes = [1_000, 9_000, 25_000, 26_000, 39_000, 41_000, 42_000];
    expect(stallsPerFault(outcomes, [10_000, 40_000])).toEqual([16_000, 2_000]);
  });

  it('counts a stall open at the next fault up to it for the first, and whole for the next', () => {
    expect(stallsPerFault([5_000, 50_000], [10_000, 20_000])).toEqual([15_000, 45_000]);
    // Outcomes flowing until just before the second fault: its stall is its own.
    expect(stallsPerFault([5_000, 12_000, 19_900, 40_000], [10_000, 20_000])).toEqual([7_900, 20_100]);
  });
});
