import { setFlagsFromString } from 'node:v8';

/**
 * How far V8 lets the old generation grow past what survived the last full collection before
 * it collects again (HEAP_GROWTH_PERCENT; 0 keeps V8's own choice).
 *
 * V8's own choice grows with the allocation rate, up to 4x the live heap: under load the
 * request path promotes tens of MiB a second of objects that die soon after (requests held
 * across a few scavenges), so a live heap of ~90 MiB was let grow to ~330 MiB of mostly
 * garbage between collections, and resident memory with it. A fixed factor collects sooner and
 * never fails an allocation: unlike --max-old-space-size, it sets no limit a larger live heap
 * (more partitions, larger windows) could run into.
 *
 * Node takes this V8 flag on the command line but not in NODE_OPTIONS, so the service sets it
 * itself, before work starts; V8 reads it at each full collection.
 */
export function applyHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
