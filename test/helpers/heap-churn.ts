/**
 * Child process of heap-growth.test.ts: HEAP_GROWTH_PERCENT's setting applied, then a live heap
 * of ~64 MiB and objects that survive a few scavenges before they die (as requests in flight
 * do); prints the largest heapTotal seen.
 */
import { applyHeapGrowth } from '../../src/service/heap-growth.js';

applyHeapGrowth(Number(process.argv[2]));
const live: number[][] = [];
for (let i = 0; i < 64 * 1024; i += 1) live.push(new Array<number>(126).fill(i));
const ring: unknown[] = new Array(50_000);
let peak = 0;
for (let i = 0; i < 3_000_000; i += 1) {
  ring[i % ring.length] = { i, list: [i, i + 1, i + 2, i + 3] };
  if (i % 20_000 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
}
console.log(JSON.stringify({ peakHeapMiB: peak / 2 ** 20, live: live.length }));
