import { describe, expect, it } from 'vitest';
import { VendorError } from '../../../../src/vendor-api/errors.js';
import { SELFIE_UNUSABLE_MESSAGE } from '../../../../src/vendor-api/selfie-download.js';
import {
  API_KEY,
  clientFor,
  json,
  multipartOf,
  parsed,
  rejectionOf,
  replyJson,
  startFakeVendor,
  callFake,
} from './fake-vendor.js';
import { faceMatchSample, faceNoMatchSample } from './samples.js';

const JPEG_BYTES = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46]);
const SELFIE = { base64: JPEG_BYTES.toString('base64') };
/** The fake image servers listen on loopback, which only the allow list opens. */
const LOOPBACK_ALLOWED = { selfieDownload: { allow: ['127.0.0.1/32'] } };
const UNUSABLE = {
  code: 'SELFIE_UNUSABLE',
  kind: 'invalid_request',
  retryable: false,
  message: SELFIE_UNUSABLE_MESSAGE,
};

describe('faceDocumentLookup', () => {
  it('face lookup puts the unmasked CPF in the path, the JPEG selfie in a multipart part and repeats document_types[]', async () => {
    const { vendor } = await callFake({ body: faceMatchSample }, 'face-document-lookup', {
      cpf: '529.982.247-25',
      selfie: SELFIE,
      documentTypes: ['federal-id', 'passport'],
    });

    const [request] = vendor.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/ocr-by-face/v1/tax-id/52998224725');
    expect(request?.rawQuery).toBe('document_types[]=federal-id&document_types[]=passport');
    expect(request?.query.getAll('document_types[]')).toEqual(['federal-id', 'passport']);
    expect(request?.headers.authorization).toBe(`ApiKey ${API_KEY}`);
    expect(multipartOf(request!)).toEqual([
      { name: 'selfie', filename: 'selfie.jpg', contentType: 'image/jpeg', data: JPEG_BYTES },
    ]);
  });

  it('face lookup sends no query when no document type is asked (vendor default)', async () => {
    const { vendor } = await callFake({ body: faceMatchSample }, 'face-document-lookup', {
      cpf: '52998224725',
      selfie: SELFIE,
    });
    expect(vendor.requests[0]?.rawQuery).toBe('');
  });

  it('face match fills ocr.birthDate from the sample spelling birthdate and keeps both', async () => {
    const { result } = await callFake({ body: faceMatchSample }, 'face-document-lookup', {
      cpf: '52998224725',
      selfie: SELFIE,
    });
    expect(result).toMatchObject({ outcome: 'ok', vendorId: 'face-1' });
    expect(result.version).toBeUndefined();
    expect(result.body?.data.ocr?.birthDate).toBe('1990-02-01');
    expect(result.body?.data.ocr?.birthdate).toBe('1990-02-01');
    expect(result.raw).toEqual(faceMatchSample);
  });

  it('face no-match is a 200 with only match false and similarity: an ok outcome', async () => {
    const { result } = await callFake({ body: faceNoMatchSample }, 'face-document-lookup', {
      cpf: '52998224725',
      selfie: SELFIE,
    });
    expect(result.outcome).toBe('ok');
    expect(result.body?.data).toEqual({ match: false, similarity: 0.12 });
  });

  it('face lookup 404 "no identity document" is outcome not_found with the envelope as raw', async () => {
    const envelope = {
      id: 'f-404',
      error: { statusCode: 404, error: 'Not Found', message: 'No identity document found for taxId' },
    };
    const vendor = await startFakeVendor(replyJson(404, envelope));
    const result = await clientFor(vendor).call(
      'face-document-lookup',
      parsed('face-document-lookup', { cpf: '52998224725', selfie: SELFIE }),
    );
    expect(result).toEqual({
      outcome: 'not_found',
      httpStatus: 404,
      body: undefined,
      raw: envelope,
      vendorId: 'f-404',
    });
  });

  it('face lookup 422 is upstream_rejected, not retryable, and hides the vendor text from serialisation', async () => {
    const envelope = {
      id: 'f-422',
      error: { statusCode: 422, error: 'Unprocessable Entity', message: 'invalid taxId 52998224725' },
    };
    const vendor = await startFakeVendor(replyJson(422, envelope));
    const error = await rejectionOf(
      clientFor(vendor).call(
        'face-document-lookup',
        parsed('face-document-lookup', { cpf: '52998224725', selfie: SELFIE }),
      ),
    );
    expect(error).toBeInstanceOf(VendorError);
    const vendorError = error as VendorError;
    expect(vendorError).toMatchObject({
      kind: 'upstream_rejected',
      code: 'VENDOR_HTTP_ERROR',
      retryable: false,
      httpStatus: 422,
      vendorId: 'f-422',
    });
    expect(vendorError.message).toBe(
      'vendor answered 422 Unprocessable Entity to POST /ocr-by-face/v1/tax-id/{CPF} (face-document-lookup)',
    );
    expect(vendorError.vendorMessage).toBe('invalid taxId 52998224725');
    expect(Object.keys(vendorError)).not.toContain('vendorMessage');
    expect(JSON.stringify(vendorError)).not.toContain('52998224725');
  });

  it('face lookup downloads a selfie URL without the API key, then uploads it', async () => {
    const images = await startFakeVendor((_, response) => {
      response.writeHead(200, { 'content-type': 'image/jpeg' });
      response.end(JPEG_BYTES);
    });
    const vendor = await startFakeVendor(replyJson(200, faceMatchSample));
    await clientFor(vendor, LOOPBACK_ALLOWED).call(
      'face-document-lookup',
      parsed('face-document-lookup', {
        cpf: '52998224725',
        selfie: { url: `${images.url}/selfie.jpg` },
      }),
    );
    expect(images.requests[0]?.path).toBe('/selfie.jpg');
    expect(images.requests[0]?.headers.authorization).toBeUndefined();
    expect(multipartOf(vendor.requests[0]!)[0]?.data).toEqual(JPEG_BYTES);
  });

  it.each([
    ['larger than the limit', JPEG_BYTES, 200, 4],
    ['not a JPEG', Buffer.from([0x89, 0x50, 0x4e, 0x47]), 200, 1024],
    ['answering 404', Buffer.from('gone'), 404, 1024],
    ['answering 403', Buffer.from('no'), 403, 1024],
    ['answering 503', Buffer.from('busy'), 503, 1024],
  ] as const)(
    'face lookup refuses a selfie URL %s before calling the vendor, with the one uniform reason',
    async (_, bytes, status, maxBytes) => {
      const images = await startFakeVendor((__, response) => {
        response.writeHead(status);
        response.end(bytes);
      });
      const vendor = await startFakeVendor((__, response) => {
        json(response, 200, faceMatchSample);
      });
      const client = clientFor(vendor, { selfieDownload: { ...LOOPBACK_ALLOWED.selfieDownload, maxBytes } });
      const error = await rejectionOf(
        client.call(
          'face-document-lookup',
          parsed('face-document-lookup', { cpf: '52998224725', selfie: { url: `${images.url}/s.jpg` } }),
        ),
      );
      expect(error).toMatchObject(UNUSABLE);
      expect(vendor.requests).toHaveLength(0);
    },
  );

  it('face lookup gives up on a selfie URL that does not answer in time, with the same reason', async () => {
    const images = await startFakeVendor(() => undefined);
    const vendor = await startFakeVendor(replyJson(200, faceMatchSample));
    const client = clientFor(vendor, {
      selfieDownload: { ...LOOPBACK_ALLOWED.selfieDownload, timeoutMs: 100 },
    });
    const error = await rejectionOf(
      client.call(
        'face-document-lookup',
        parsed('face-document-lookup', { cpf: '52998224725', selfie: { url: `${images.url}/s.jpg` } }),
      ),
    );
    expect(error).toMatchObject(UNUSABLE);
  });
});
