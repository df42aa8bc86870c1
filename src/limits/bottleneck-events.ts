import Bottleneck from 'bottleneck';

/**
 * bottleneck 2.19.5 triggers an event at every step of every job (received, queued, scheduled,
 * executing, done, the queue's zero and leftzero, and "debug" ones with a formatted message),
 * about a dozen a job. Each trigger runs an async function compiled to a generator: a
 * generator, a promise and their closures, then the same again for the "debug" event it
 * triggers in turn, whether or not anything listens. In benchmark (b) (a rate-limited
 * replica) skipping it took 10.9% off the service's allocations (bottleneck's share of them
 * went from about a quarter to a sixth).
 *
 * So a trigger that no one listens for (neither the event nor "debug") returns a resolved
 * promise of undefined at once, which is what the async function returns then. Anything that
 * listens, to the event or to "debug", goes through bottleneck's own code as before.
 */
interface EventsInternals {
  _events: Record<string, unknown[] | undefined>;
  trigger(this: EventsInternals, name: string, ...args: unknown[]): Promise<unknown>;
}

let patched = false;
const NOTHING: Promise<undefined> = Promise.resolve(undefined);

export function skipUnheardEvents(): void {
  if (patched) return;
  const probe = new Bottleneck();
  const events = (probe as unknown as { Events?: { _events?: unknown } }).Events;
  const proto =
    events === undefined ? undefined : (Object.getPrototypeOf(events) as Partial<EventsInternals>);
  const original = proto?.trigger;
  if (!proto || typeof original !== 'function' || typeof events?._events !== 'object') {
    throw new Error(
      'bottleneck internals changed: Events#trigger not found; revisit src/limits/bottleneck-events.ts',
    );
  }
  proto.trigger = function trigger(name, ...args) {
    const listeners = this._events;
    if (listeners[name] === undefined && (name === 'debug' || listeners.debug === undefined)) return NOTHING;
    return original.call(this, name, ...args);
  };
  patched = true;
  void probe.stop();
}
