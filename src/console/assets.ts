import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';

/** The console's own CSS and script, served from the package: no CDN, works offline. */
const ASSETS: Record<string, string> = {
  'console.css': 'text/css; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
};

export function registerAssets(scope: FastifyInstance): void {
  const loaded = new Map(
    Object.entries(ASSETS).map(([name, type]) => [
      name,
      { type, body: readFileSync(new URL(`./assets/${name}`, import.meta.url)) },
    ]),
  );
  scope.get<{ Params: { name: string } }>('/assets/:name', (request, reply) => {
    const asset = loaded.get(request.params.name);
    if (!asset) return reply.code(404).type('text/plain').send('not found');
    return reply.type(asset.type).header('cache-control', 'max-age=300').send(asset.body);
  });
}
