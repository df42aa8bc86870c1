import type { FastifyInstance } from 'fastify';
import {
  buildFaceResult,
  DEFAULT_DOCUMENT_KINDS,
  documentKindOf,
  type DocumentKind,
} from '../data/face-record.js';
import { SandboxHttpError, badRequest, newId } from '../envelope.js';
import { normaliseCpf } from '../identifiers.js';
import { sha256Hex } from '../random.js';
import { setFingerprint, type RouteDeps } from './deps.js';
import { isJpeg, readMultipartFiles } from './files.js';

function unprocessable(message: string): SandboxHttpError {
  return new SandboxHttpError(422, message);
}

/** `document_types[]` repeated (also accepted without brackets or as a comma list). */
function documentKinds(query: Record<string, unknown>): Set<DocumentKind> {
  const raw = query['document_types[]'] ?? query.document_types;
  if (raw === undefined) return new Set(DEFAULT_DOCUMENT_KINDS);
  const values = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(','));
  const kinds = new Set<DocumentKind>();
  for (const value of values) {
    const kind = documentKindOf(value.trim());
    if (kind === undefined)
      throw unprocessable('invalid document_types: use federal-id, passport or driver_license');
    kinds.add(kind);
  }
  return kinds;
}

export function registerFaceRoutes(app: FastifyInstance, _deps: RouteDeps): void {
  app.post<{ Params: { cpf: string } }>('/ocr-by-face/v1/tax-id/:cpf', async (request) => {
    if (!request.isMultipart()) throw badRequest("send multipart/form-data with a 'selfie' file part");
    const files = await readMultipartFiles(request);
    const cpf = normaliseCpf(request.params.cpf);
    if (cpf === undefined) throw unprocessable('invalid taxId');
    const kinds = documentKinds(request.query as Record<string, unknown>);
    const selfie = files.find((file) => file.fieldname === 'selfie');
    if (selfie === undefined) throw badRequest("missing file part 'selfie'");
    if (!isJpeg(selfie.content)) throw unprocessable('invalid image: selfie must be a JPEG/JPG file');
    const selfieHash = sha256Hex(selfie.content);
    setFingerprint(request, `${cpf}:${selfieHash}:${[...kinds].sort().join(',')}`);
    const result = buildFaceResult(cpf, selfieHash, kinds);
    if (result.kind === 'no-document') {
      throw new SandboxHttpError(404, 'No identity document was found for the provided taxId and filters');
    }
    // This operation answers with `id` and `data` only: no version, no metadata (spec).
    return { id: newId(), data: result.data };
  });
}
