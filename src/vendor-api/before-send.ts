import type { Duplex } from 'node:stream';
import { Dispatcher } from 'undici';

/** Dispatch options with the hook that BeforeSendDispatcher runs. */
export interface BeforeSendOptions extends Dispatcher.DispatchOptions {
  beforeSend?: (() => void) | undefined;
}

/** What the hook threw, carried through undici's abort so that the transport rethrows it as is. */
export class NotSent extends Error {
  constructor(readonly reason: unknown) {
    super('request not sent: refused before it was written', { cause: reason });
  }
}

/**
 * Hands requests to `agent`, running `opts.beforeSend` from the handler's onConnect, which
 * undici calls synchronously just before it writes the request to a socket (after a reused
 * keep-alive socket has been checked, a step that waits for the event loop's check phase). A
 * hook that throws aborts the request before any byte is written; undici then closes that
 * socket, so a refusal costs a connection.
 *
 * Not an interceptor (Dispatcher.compose): those speak undici's new handler API, and the
 * request() handler's answers then went through two more adapters each, headers converted to
 * an object and back to Buffers; the vendor leg alone lost 10-15% of its calls per second. This
 * wraps request()'s own handler in the API it already speaks, and only when a hook is given.
 */
export class BeforeSendDispatcher extends Dispatcher {
  constructor(private readonly agent: Dispatcher) {
    super();
  }

  override dispatch(opts: BeforeSendOptions, handler: Dispatcher.DispatchHandler): boolean {
    const hook = opts.beforeSend;
    return this.agent.dispatch(opts, hook === undefined ? handler : new BeforeSendHandler(handler, hook));
  }
}

/**
 * request()'s handler (undici's legacy handler API, the methods its Request calls), with the
 * hook run once the request has its socket. Every call goes to the wrapped handler itself, so
 * that what it keeps on `this` (its abort function) stays its own.
 */
/* eslint-disable @typescript-eslint/no-deprecated -- the API undici's request() handler speaks */
class BeforeSendHandler implements Dispatcher.DispatchHandler {
  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly hook: () => void,
  ) {}

  onConnect(abort: (err?: Error) => void): void {
    this.handler.onConnect?.(abort);
    try {
      this.hook();
    } catch (error) {
      // A no-op when the handler has already aborted (its signal fired).
      abort(new NotSent(error));
    }
  }

  onResponseStarted(): void {
    this.handler.onResponseStarted?.();
  }

  onHeaders(statusCode: number, headers: Buffer[], resume: () => void, statusText: string): boolean {
    return this.handler.onHeaders?.(statusCode, headers, resume, statusText) ?? true;
  }

  onData(chunk: Buffer): boolean {
    return this.handler.onData?.(chunk) ?? true;
  }

  onComplete(trailers: string[] | null): void {
    this.handler.onComplete?.(trailers);
  }

  onError(err: Error): void {
    this.handler.onError?.(err);
  }

  onUpgrade(statusCode: number, headers: Buffer[] | string[] | null, socket: Duplex): void {
    this.handler.onUpgrade?.(statusCode, headers, socket);
  }

  onBodySent(chunkSize: number, totalBytesSent: number): void {
    this.handler.onBodySent?.(chunkSize, totalBytesSent);
  }
}
/* eslint-enable @typescript-eslint/no-deprecated */
