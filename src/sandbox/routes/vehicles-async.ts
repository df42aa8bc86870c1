import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SandboxHttpError, badRequest, envelope, timeSpent } from '../envelope.js';
import { setFingerprint, type RouteDeps } from './deps.js';
import { ALPHANUMERIC } from './vehicles.js';

const webhookSchema = z.looseObject({
  url: z.url({ protocol: /^https?$/ }),
  method: z.enum(['POST', 'GET', 'PATCH', 'PUT']).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  body: z.record(z.string(), z.unknown()).optional(),
});

const createSchema = z.looseObject({
  licensePlate: z.string().regex(ALPHANUMERIC, 'letters and digits only'),
  webhook: webhookSchema.optional(),
});

export function registerVehicleAsyncRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.post('/vehicles-async/v3', (request) => {
    if (typeof request.body !== 'object' || request.body === null) {
      throw badRequest('send a JSON body with licensePlate (all parameters travel in the body)');
    }
    const parsed = createSchema.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw badRequest(`invalid ${issue?.path.join('.') ?? 'body'}: ${issue?.message ?? 'invalid'}`);
    }
    const plate = parsed.data.licensePlate.toUpperCase();
    setFingerprint(request, plate);
    // The stored webhook is returned unchanged by the query, so keep what was received.
    const received = (request.body as { webhook?: unknown }).webhook;
    const search = deps.asyncSearches.create(plate, received, parsed.data.webhook);
    return { id: search.requestId, version: 'v3Async', metadata: { timeSpent: timeSpent(request) } };
  });

  app.get<{ Params: { requestId: string } }>('/vehicles-async/v3/:requestId', (request) => {
    const { requestId } = request.params;
    if (requestId.trim() === '') throw new SandboxHttpError(400, 'requestId is required');
    setFingerprint(request, requestId);
    const search = deps.asyncSearches.get(requestId);
    if (search === undefined)
      throw new SandboxHttpError(404, 'Nenhuma consulta encontrada para o requestId informado.');
    // The root id names this query; the search itself is data.requestId (spec).
    return envelope(request, 'v3Async', { ...search });
  });
}
