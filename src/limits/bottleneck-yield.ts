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
 *
 * Then each job that got its slot starts from `setTimeout(…, wait)` (Bottleneck#_run), with
 * wait 0 unless minTime spaces jobs (we set none): another 1 ms clamp, before every vendor
 * call, about 1.4 ms of a call's limiter wait at 150 calls/s. A job with no wait and no
 * expiration now starts from setImmediate, at the end of the current turn. stop() with
 * dropWaitingJobs drops a job that has not started by clearing its timer; with no timer, the
 * job checks its own state instead and does not start once dropped (the timer's job did the
 * same through _assertStatus, by throwing).
 */
interface YieldingStore {
  yieldLoop(this: YieldingStore & { Promise: PromiseConstructor }, delayMs?: number): Promise<void>;
}

interface BottleneckJob {
  retryCount: number;
  options: { id: string; expiration?: number | null };
  doRun(): void;
  doExecute(chained: unknown, clearGlobalState: () => boolean, run: unknown, free: unknown): Promise<void>;
}

interface BottleneckInternals {
  _limiter: unknown;
  _scheduled: Record<string, { timeout: unknown; expiration: unknown; job: BottleneckJob }>;
  _clearGlobalState(index: string): boolean;
  _free(index: string, job: BottleneckJob, ...rest: unknown[]): unknown;
  _run(this: BottleneckInternals, index: string, job: BottleneckJob, wait: number): unknown;
  jobStatus(id: string): string | null;
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
  startWithoutTimer();
  patched = true;
  void probe.stop();
}

function startWithoutTimer(): void {
  const proto = Bottleneck.prototype as unknown as Partial<BottleneckInternals>;
  const original = proto._run;
  if (typeof original !== 'function' || typeof proto._clearGlobalState !== 'function') {
    throw new Error(
      'bottleneck internals changed: Bottleneck#_run not found; revisit src/limits/bottleneck-yield.ts',
    );
  }
  proto._run = function run(index, job, wait) {
    if (wait > 0 || job.options.expiration != null) return original.call(this, index, job, wait);
    job.doRun();
    const clearGlobalState = this._clearGlobalState.bind(this, index);
    const retry = this._run.bind(this, index, job);
    const free = this._free.bind(this, index, job);
    // A retry runs the job again from EXECUTING; a first run from RUNNING, as the timer's did.
    const expected = job.retryCount === 0 ? 'RUNNING' : 'EXECUTING';
    setImmediate(() => {
      if (this.jobStatus(job.options.id) !== expected) return;
      void job.doExecute(this._limiter, clearGlobalState, retry, free);
    });
    return (this._scheduled[index] = { timeout: undefined, expiration: undefined, job });
  };
}

export function isMicrotaskYieldInUse(): boolean {
  return patched;
}
