import type { FileInput, ParamsOf } from '../../contract/params.js';
import type { VendorCall } from '../errors.js';
import { singleFileForm } from '../multipart.js';
import { interpret } from '../respond.js';
import { classifyResponseSchema, type ClassifyResponse } from '../schemas/classify.js';
import type { CallOptions, VendorContext, VendorRequest, VendorResult } from '../types.js';

const CALL: VendorCall = { operation: 'classify-document', route: 'POST /classify/v3' };

/** Part name of the multipart upload and member name of the JSON ways (spec samples). */
export const CLASSIFY_PART_NAME = 'documento';
export const CLASSIFY_MEMBER_NAME = 'arquivo1';

/** POST /classify/v3: one file (vendor-api.md "Limits"); an empty `data` means none found. */
export async function classifyDocument(
  context: VendorContext,
  params: ParamsOf<'classify-document'>,
  options: CallOptions = {},
): Promise<VendorResult<ClassifyResponse>> {
  const { file } = params;
  const response = await context.send({
    call: CALL,
    method: 'POST',
    path: '/classify/v3',
    signal: options.signal,
    beforeSend: options.beforeSend,
    ...fileBody(file, context.options.classifyUpload),
  });
  return interpret(CALL, response, classifyResponseSchema);
}

/**
 * The three file-input ways (vendor-api.md, "File inputs"): a `{url}` file goes the link way
 * (the vendor downloads it); a base64 file goes multipart, the recommended way, unless the
 * client is configured for the base64 JSON way.
 */
function fileBody(file: FileInput, upload: 'multipart' | 'base64'): Pick<VendorRequest, 'json' | 'form'> {
  if ('url' in file) return { json: { urls: { [CLASSIFY_MEMBER_NAME]: file.url } } };
  if (upload === 'base64') return { json: { base64: { [CLASSIFY_MEMBER_NAME]: file.base64 } } };
  return {
    form: singleFileForm({
      name: CLASSIFY_PART_NAME,
      bytes: Buffer.from(file.base64, 'base64'),
      filename: file.filename,
      contentType: file.contentType,
    }),
  };
}
