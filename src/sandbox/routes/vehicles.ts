import type { FastifyInstance } from 'fastify';
import { buildVehicleBase, toSyncVehicle } from '../data/vehicle-record.js';
import { SandboxHttpError, badRequest, envelope, singleParam } from '../envelope.js';
import { Prng } from '../random.js';
import { isVehicleNotFound, type VehicleSearchParam } from '../scenarios.js';
import { setFingerprint, type RouteDeps } from './deps.js';

const SEARCH_PARAMS: readonly VehicleSearchParam[] = ['licensePlate', 'registryId', 'chassis'];
export const ALPHANUMERIC = /^[A-Za-z0-9]+$/;

export function registerVehicleRoutes(app: FastifyInstance, deps: RouteDeps): void {
  app.get('/vehicles/v3', (request) => {
    const query = request.query as Record<string, unknown>;
    const given = SEARCH_PARAMS.filter((name) => query[name] !== undefined);
    const [param] = given;
    if (given.length !== 1 || param === undefined) {
      throw badRequest('exactly one of licensePlate, registryId or chassis must be given');
    }
    const raw = singleParam(query, param) ?? '';
    if (!ALPHANUMERIC.test(raw)) throw badRequest(`${param} must have letters and digits only`);
    const value = raw.toUpperCase();
    setFingerprint(request, `${param}=${value}`);
    if (isVehicleNotFound(param, value)) {
      throw new SandboxHttpError(404, 'Nenhum dado encontrado para a placa informada.');
    }
    const data = deps.cache.getOrBuild(`vehicle:${param}:${value}`, () => {
      const prng = Prng.from(`vehicle:${param}:${value}`);
      return toSyncVehicle(buildVehicleBase(prng, { [param]: value }), prng);
    });
    return envelope(request, 'v3', data);
  });
}
