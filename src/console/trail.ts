import type { FastifyInstance } from 'fastify';
import { readTrail } from '../audit/collect.js';
import { AuditError } from '../audit/errors.js';
import { optionalTime } from '../audit/flags.js';
import { requestIdOf } from '../audit/filters.js';
import { member } from '../audit/records.js';
import { failed } from './dead-letters.js';
import type { ConsoleDeps } from './index.js';
import { page } from './index.js';
import { maskKey, maskValue } from '../audit/mask.js';

/** One request across the topics in time order: `replay --request-id`, as a timeline. */
export function registerTrail(scope: FastifyInstance, deps: ConsoleDeps): void {
  scope.get<{ Querystring: { requestId?: string; from?: string } }>('/trail', async (request, reply) => {
    const requestId = (request.query.requestId ?? '').trim();
    const from = (request.query.from ?? '').trim();
    const view = { requestId, from, entries: [] as unknown[], error: undefined };
    if (requestId === '') return page(request, reply, 'trail', view);
    try {
      const window = { kind: 'time' as const, from: optionalTime('from', from || undefined) };
      const { records } = await readTrail(deps.audit(), window, { requestIds: [requestId] }).catch(
        (error: unknown) => {
          if (error instanceof AuditError && error.code === 'EMPTY_WINDOW') return { records: [] };
          throw error;
        },
      );
      const entries = records
        .filter((r) => requestIdOf(r) === requestId)
        .map((r) => ({
          at: new Date(r.source.timestamp).toISOString(),
          topic: r.source.topic,
          partition: r.source.partition,
          offset: r.source.offset,
          key: maskKey(r.key),
          status: member(r.value, 'status') ?? member(member(r.value, 'error'), 'kind') ?? '',
          redriveOf: r.headers['x-redrive-of'] ?? '',
          value: JSON.stringify(maskValue(r.value), null, 2),
        }));
      return await page(request, reply, 'trail', { ...view, entries });
    } catch (error) {
      return failed(request, reply, 'trail', view, error);
    }
  });
}
