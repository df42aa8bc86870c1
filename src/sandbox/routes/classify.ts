import type { FastifyInstance } from 'fastify';
import { CATALOG, COMMON_ENTRIES, type CatalogEntry } from '../data/catalog.js';
import { badRequest, envelope } from '../envelope.js';
import { Prng, sha256 } from '../random.js';
import { isEmptyClassification } from '../scenarios.js';
import { setFingerprint, type RouteDeps } from './deps.js';
import { readJsonFile, readMultipartFiles, type UploadedFile } from './files.js';

/** Results ordered best first; confidences above an internal threshold, as the vendor filters. */
export function classifyContent(content: Buffer, digest: Buffer, fieldname: string): object[] {
  if (isEmptyClassification(content.length)) return [];
  const prng = new Prng(digest);
  const roll = prng.next();
  const count = roll < 0.75 ? 1 : roll < 0.93 ? 2 : 3;
  const entries: CatalogEntry[] = [prng.bool(0.8) ? prng.pick(COMMON_ENTRIES) : prng.pick(CATALOG)];
  while (entries.length < count) {
    const next = prng.pick(CATALOG);
    if (!entries.includes(next)) entries.push(next);
  }
  let confidence = prng.int(850, 999) / 1000;
  return entries.map((entry) => {
    const result = {
      classification: {
        type: entry.type,
        ...(entry.subtype === undefined ? {} : { subtype: entry.subtype }),
        country: entry.country,
        sides: [{ side: prng.pick(entry.sides), page: 0, fieldname, confidence }],
      },
    };
    confidence = Math.max(0.5, Math.round((confidence - prng.int(50, 200) / 1000) * 1000) / 1000);
    return result;
  });
}

export function registerClassifyRoutes(app: FastifyInstance, _deps: RouteDeps): void {
  app.post('/classify/v3', async (request) => {
    let file: UploadedFile;
    if (request.isMultipart()) {
      const files = await readMultipartFiles(request);
      const [only] = files;
      if (files.length !== 1 || only === undefined) {
        throw badRequest(`exactly one file per call; received ${String(files.length)}`);
      }
      file = only;
    } else {
      file = readJsonFile(request.body);
    }
    const digest = sha256(file.content);
    const hex = digest.toString('hex');
    setFingerprint(request, hex);
    const data = classifyContent(file.content, digest, file.fieldname);
    const filesInfo = [
      {
        fieldname: file.fieldname,
        name: file.name,
        size: file.content.length,
        pages: 1,
        mimetype: file.mimetype,
        encoding: file.encoding,
        sha256: hex,
      },
    ];
    return envelope(request, 'v3', data, { filesInfo });
  });
}
