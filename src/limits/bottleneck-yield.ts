import Bottleneck from 'bottleneck';

/**
 * bottleneck 2.19.5 (unmaintained since 2019) yields to the event loop between the steps of
 * every job with `setTimeout(resolve, 0)` (LocalDatastore#yieldLoop), and serialises
 * submissions behind a lock. Node clamps a 0 ms timer to at least 1 ms, so one limiter starts
 * at most ~400 jobs a second however high maxConcurrent is. Measured on this 2-core machine,
 * 20,000 no-op jobs: 2,538 µs/job (394 jobs/s) as shipped; 136 µs/job (7,376 jobs/s) when the
 * same yield uses setImmediate. The yield's purpose (let I/O run between steps) is kept; only
 * the timer clamp goes. Every call site passes no delay (`yieldLoop()`), which this checks.
 */
interface YieldingStore {
  yieldLoop(this: YieldingStore & { Promise: PromiseConstructor }, delayMs?: number): Promise<void>;
}

let patched = false;

export function useImmediateYield(): void {
  if (patched) return;
  const probe = new Bottleneck();
  const store = (probe as unknown as { _store?: unknown })._store;
  const proto = store === undefined ? undefined : (Object.getPrototypeOf(store) as Partial<YieldingStore>);
  const original = proto?.yieldLoop;
  if (!proto || typeof original !== 'function') {
    throw new Error(
      'bottleneck internals changed: LocalDatastore#yieldLoop not found; revisit src/limits/bottleneck-yield.ts',
    );
  }
  proto.yieldLoop = function yieldLoop(delayMs = 0) {
    if (delayMs > 0) return original.call(this, delayMs);
    return new this.Promise<void>((resolve) => {
      setImmediate(resolve);
    });
  };
  patched = true;
  void probe.stop();
}

export function isImmediateYieldInUse(): boolean {
  return patched;
}
