import Bottleneck from 'bottleneck';

/**
 * bottleneck 2.19.5 (unmaintained since 2019) yields between the steps of every job with
 * `setTimeout(resolve, 0)` (LocalDatastore#yieldLoop), and serialises submissions behind a lock,
 * so one limiter starts at most one job per turn of the event loop. Node clamps that timer to
 * 1 ms: ~400 jobs a second. A macrotask yield (setImmediate) still costs a whole turn per job,
 * and a turn under load is long. Measured on this 2-core machine, 20,000 no-op jobs with
 * maxConcurrent 256 (node /tmp bench, same run):
 *   setImmediate: 5,822 jobs/s idle, 836 with the loop busy 0.5 ms a turn;
 *   microtask:    7,867 jobs/s idle, 6,308 with the loop busy 0.5 ms a turn.
 * So the yield is a resolved promise: still asynchronous (a job never runs inside schedule()),
 * no longer a turn of the loop. Every call site passes no delay (`yieldLoop()`), which this
 * checks; a delayed yield keeps the original timer.
 */
interface YieldingStore {
  yieldLoop(this: YieldingStore & { Promise: PromiseConstructor }, delayMs?: number): Promise<void>;
}

let patched = false;

export function useMicrotaskYield(): void {
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
    return this.Promise.resolve();
  };
  patched = true;
  void probe.stop();
}

export function isMicrotaskYieldInUse(): boolean {
  return patched;
}
