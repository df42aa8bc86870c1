import type { Service } from './types.js';

/**
 * Starts the service with a fatal-error handler that may run before `start` has returned
 * (the runtime can fail while the service is still starting): the handler then gets no
 * service rather than reading a binding that does not exist yet, which used to replace the
 * real error with a ReferenceError.
 */
export async function startWithFatalHandler(
  start: (onFatal: (error: unknown) => void) => Promise<Service>,
  onFatal: (service: Service | undefined, error: unknown) => void,
): Promise<Service> {
  const started: { service?: Service } = {};
  started.service = await start((error) => {
    onFatal(started.service, error);
  });
  return started.service;
}
