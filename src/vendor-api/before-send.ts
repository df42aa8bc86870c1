import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';

/** Dispatch options with the hook that beforeSendInterceptor runs. */
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
 * Runs `opts.beforeSend` at onRequestStart, which undici calls synchronously just before it
 * writes the request to a socket (after a reused keep-alive socket has been checked, a step that
 * waits for the event loop's check phase). A hook that throws aborts the request before any byte
 * is written; undici then closes that socket, so a refusal costs a connection.
 */
export const beforeSendInterceptor: Dispatcher.DispatcherComposeInterceptor =
  (dispatch) => (opts: BeforeSendOptions, handler) => {
    const hook = opts.beforeSend;
    return dispatch(opts, hook === undefined ? handler : new BeforeSendHandler(handler, hook));
  };

class BeforeSendHandler implements Dispatcher.DispatchHandler {
  constructor(
    private readonly handler: Dispatcher.DispatchHandler,
    private readonly hook: () => void,
  ) {}

  onRequestStart(controller: Dispatcher.DispatchController, context: unknown): void {
    this.handler.onRequestStart?.(controller, context);
    if (controller.aborted) return;
    try {
      this.hook();
    } catch (error) {
      controller.abort(new NotSent(error));
    }
  }

  onRequestUpgrade(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.handler.onRequestUpgrade?.(controller, statusCode, headers, socket);
  }

  onResponseStart(
    controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    this.handler.onResponseStart?.(controller, statusCode, headers, statusMessage);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.handler.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Dispatcher.DispatchController, trailers: IncomingHttpHeaders): void {
    this.handler.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Dispatcher.DispatchController, error: Error): void {
    this.handler.onResponseError?.(controller, error);
  }
}
