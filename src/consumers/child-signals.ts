/**
 * Per-message abort signals that follow a partition's signal. Each message needs a signal of its
 * own: the calls it makes add and remove abort listeners, and removing one from a signal shared
 * by the whole partition walks a list as long as the work in flight. `AbortSignal.any` gives
 * that, but ties each child to its parent with weak references the garbage collector must trace
 * and clear, a measurable share of the CPU per request. Here the parent has one listener, and
 * its children sit in a set until they are released.
 */
export interface ChildSignal {
  readonly signal: AbortSignal;
  /** The message is done: the parent no longer aborts this child. */
  release(): void;
}

export class ChildSignals {
  private readonly children = new WeakMap<AbortSignal, Set<AbortController>>();

  childOf(parent: AbortSignal): ChildSignal {
    const controller = new AbortController();
    if (parent.aborted) {
      controller.abort(parent.reason);
      return { signal: controller.signal, release: noop };
    }
    const live = this.liveOf(parent);
    live.add(controller);
    return {
      signal: controller.signal,
      release: () => {
        live.delete(controller);
      },
    };
  }

  private liveOf(parent: AbortSignal): Set<AbortController> {
    const known = this.children.get(parent);
    if (known) return known;
    const live = new Set<AbortController>();
    this.children.set(parent, live);
    parent.addEventListener(
      'abort',
      () => {
        for (const controller of live) controller.abort(parent.reason);
        live.clear();
      },
      { once: true },
    );
    return live;
  }
}

function noop(): void {}
