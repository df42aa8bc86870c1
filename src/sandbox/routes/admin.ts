import type { FastifyInstance } from 'fastify';
import type { Counters } from '../counters.js';
import { SandboxHttpError } from '../envelope.js';
import { applyKnobs, parseKnobsPatch, type SandboxKnobs } from '../knobs.js';

export interface AdminDeps {
  knobs: SandboxKnobs;
  initialKnobs: Readonly<SandboxKnobs>;
  counters: Counters;
  reset(): void;
}

/** Test and benchmark controls under /__sandbox/ (no API key needed; never a vendor path). */
export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
  app.get('/__sandbox/health', () => ({ status: 'ok' }));

  app.get('/__sandbox/knobs', () => deps.knobs);

  app.put('/__sandbox/knobs', (request) => {
    try {
      return applyKnobs(deps.knobs, parseKnobsPatch(request.body ?? {}));
    } catch (error) {
      throw new SandboxHttpError(400, error instanceof Error ? error.message : String(error));
    }
  });

  app.delete('/__sandbox/knobs', () => applyKnobs(deps.knobs, { ...deps.initialKnobs }));

  app.get('/__sandbox/counters', () => deps.counters.snapshot());

  app.post('/__sandbox/reset', () => {
    deps.reset();
    return { reset: true };
  });
}
