import type { ParamsOf } from '../../contract/params.js';
import type { VendorCall } from '../errors.js';
import { singleFileForm } from '../multipart.js';
import { interpret } from '../respond.js';
import { faceResponseSchema, type FaceResponse } from '../schemas/face.js';
import type { CallOptions, VendorContext, VendorResult } from '../types.js';

// The route template, never the path: the path carries the CPF.
const CALL: VendorCall = { operation: 'face-document-lookup', route: 'POST /ocr-by-face/v1/tax-id/{CPF}' };

/**
 * POST /ocr-by-face/v1/tax-id/{CPF}: the CPF as 11 digits in the path (vendor-api.md,
 * "Limits"), the JPEG `selfie` as a multipart file, `document_types[]` repeated in the query.
 * A 404 is "no identity document for the tax id and filters": outcome `not_found`. A selfie
 * that does not match is a 200 with `match: false`, returned as `ok`.
 */
export async function faceDocumentLookup(
  context: VendorContext,
  params: ParamsOf<'face-document-lookup'>,
  options: CallOptions = {},
): Promise<VendorResult<FaceResponse>> {
  const selfie =
    'base64' in params.selfie
      ? Buffer.from(params.selfie.base64, 'base64')
      : await context.selfies.download(params.selfie.url, options.signal);
  const response = await context.send({
    call: CALL,
    method: 'POST',
    path: `/ocr-by-face/v1/tax-id/${params.cpf}`,
    query: (params.documentTypes ?? []).map((type) => ['document_types[]', type] as const),
    form: singleFileForm({
      name: 'selfie',
      bytes: selfie,
      filename: 'selfie.jpg',
      contentType: 'image/jpeg',
    }),
    signal: options.signal,
    beforeSend: options.beforeSend,
  });
  return interpret(CALL, response, faceResponseSchema, { notFoundIsAnswer: true });
}
