import multipart from '@fastify/multipart';
import Fastify, { type FastifyError, type FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../observability/logger.js';
import { AsyncSearchStore } from './async-searches.js';
import { RecordCache } from './cache.js';
import { Counters, type CounterSnapshot } from './counters.js';
import { SandboxHttpError, errorBody, errorVersionOf, type RequestState } from './envelope.js';
import { createOnRequest, createOnSend, Holds } from './hooks.js';
import { DEFAULT_KNOBS, applyKnobs, parseKnobsPatch, type KnobsPatch, type SandboxKnobs } from './knobs.js';
import { operationOf } from './operations.js';
import { registerAdminRoutes } from './routes/admin.js';
import { registerClassifyRoutes } from './routes/classify.js';
import type { RouteDeps } from './routes/deps.js';
import { registerFaceRoutes } from './routes/face.js';
import { registerLawsuitRoutes } from './routes/lawsuits.js';
import { registerRegistryRoutes } from './routes/registry.js';
import { registerVehicleAsyncRoutes } from './routes/vehicles-async.js';
import { registerVehicleRoutes } from './routes/vehicles.js';
import { WebhookSender } from './webhook-sender.js';

export interface SandboxOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The key callers must send as `Authorization: ApiKey <key>`. */
  apiKey: string;
  knobs?: KnobsPatch;
  logger?: Logger;
}

export interface Sandbox {
  url: string;
  port: number;
  /** Live knobs: assigning a member takes effect on the next call. */
  knobs: SandboxKnobs;
  /** Validated partial update (throws naming the bad knob). */
  setKnobs(patch: KnobsPatch): SandboxKnobs;
  counters(): CounterSnapshot;
  /** Clears counters, rate windows, async searches and caches; knobs stay. */
  reset(): void;
  /** Resolves when every webhook delivery started so far has finished. */
  webhooksIdle(): Promise<void>;
  /**
   * Ends every pending async search now, webhooks sent as usual; returns how many. With a long
   * asyncDelayMs, a test decides when the vendor finishes instead of racing the delay.
   */
  finishAsyncSearches(): number;
  close(): Promise<void>;
}

const MAX_FILE_BYTES = 20 * 1024 * 1024;

function installErrorHandlers(app: FastifyInstance, logger: Logger | undefined): void {
  app.setErrorHandler((error: FastifyError | SandboxHttpError, request, reply) => {
    // Null only when the framework failed the request before onRequest ran.
    const version = errorVersionOf((request.sandboxState as RequestState | null)?.operation);
    if (error instanceof SandboxHttpError) {
      return reply.code(error.statusCode).send(errorBody(error.statusCode, error.message, version));
    }
    const status =
      typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 600
        ? error.statusCode
        : 500;
    if (status >= 500) logger?.error({ code: error.code, message: error.message }, 'sandbox handler failed');
    return reply
      .code(status)
      .send(errorBody(status, status >= 500 ? 'Internal Server Error' : error.message, version));
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(errorBody(404, `Route ${request.method} ${request.url.split('?')[0] ?? ''} not found`)),
  );
}

async function createApp(): Promise<FastifyInstance> {
  const app = Fastify({
    logger: false,
    bodyLimit: 32 * 1024 * 1024,
    forceCloseConnections: true,
    return503OnClosing: false,
  });
  app.decorateRequest('sandboxState', null as never);
  await app.register(multipart, {
    limits: { fileSize: MAX_FILE_BYTES, files: 10, fields: 50, parts: 60 },
    throwFileSizeLimit: true,
  });
  return app;
}

function registerRoutes(
  app: FastifyInstance,
  deps: RouteDeps,
  admin: Parameters<typeof registerAdminRoutes>[1],
): void {
  registerClassifyRoutes(app, deps);
  registerFaceRoutes(app, deps);
  registerLawsuitRoutes(app, deps);
  registerVehicleRoutes(app, deps);
  registerVehicleAsyncRoutes(app, deps);
  registerRegistryRoutes(app, deps);
  registerAdminRoutes(app, admin);
}

/** Starts the vendor API simulator (see src/sandbox/README.md). */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  if (options.apiKey === '') throw new Error('createSandbox: apiKey is required (the key callers must send)');
  const logger = options.logger?.child({ component: 'sandbox' });
  const initialKnobs: Readonly<SandboxKnobs> = Object.freeze({
    ...DEFAULT_KNOBS,
    ...parseKnobsPatch(options.knobs ?? {}),
  });
  const knobs: SandboxKnobs = { ...initialKnobs };
  const counters = new Counters();
  const holds = new Holds();
  const webhooks = new WebhookSender({ knobs, counters, logger });
  const asyncSearches = new AsyncSearchStore({ knobs, webhooks, logger });
  const cache = new RecordCache();
  const reset = (): void => {
    counters.reset();
    asyncSearches.clear();
    cache.clear();
  };

  const app = await createApp();
  app.addHook(
    'onRequest',
    createOnRequest({ apiKey: options.apiKey, knobs, counters, holds, operationOf, logger }),
  );
  app.addHook('onSend', createOnSend({ counters, logger }));
  installErrorHandlers(app, logger);

  registerRoutes(app, { cache, asyncSearches }, { knobs, initialKnobs, counters, reset });

  const host = options.host ?? '127.0.0.1';
  await app.listen({ host, port: options.port ?? 0 });
  const { port } = app.server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${String(port)}`;
  logger?.debug({ url }, 'sandbox listening');

  return {
    url,
    port,
    knobs,
    setKnobs: (patch) => applyKnobs(knobs, parseKnobsPatch(patch)),
    counters: () => counters.snapshot(),
    reset,
    webhooksIdle: () => webhooks.idle(),
    finishAsyncSearches: () => asyncSearches.finishPending(),
    async close() {
      holds.clear();
      asyncSearches.clear();
      await app.close();
      await webhooks.close();
    },
  };
}
