import { describe, expect, it } from 'vitest';
import {
  API_KEY,
  clientFor,
  json,
  multipartOf,
  parsed,
  replyJson,
  startFakeVendor,
  callFake,
} from './fake-vendor.js';
import { classifySample } from './samples.js';

const JPEG_BYTES = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46]);
const JPEG_BASE64 = JPEG_BYTES.toString('base64');

describe('classifyDocument', () => {
  it('classify sends one multipart file part and the ApiKey header', async () => {
    const { vendor, result } = await callFake({ body: classifySample }, 'classify-document', {
      file: { base64: JPEG_BASE64 },
    });

    const [request] = vendor.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/classify/v3');
    expect(request?.headers.authorization).toBe(`ApiKey ${API_KEY}`);
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(multipartOf(request!)).toEqual([
      { name: 'documento', filename: 'documento.jpg', contentType: 'image/jpeg', data: JPEG_BYTES },
    ]);

    expect(result).toMatchObject({
      outcome: 'ok',
      httpStatus: 200,
      vendorId: 'cls-1',
      version: 'v3',
      timeSpent: 1.25,
    });
    expect(result.body?.data[0]?.classification.type).toBe('DriversLicense');
    expect(result.raw).toEqual(classifySample);
  });

  it('classify keeps members the spec does not list, in the body and in raw', async () => {
    const { result } = await callFake({ body: classifySample }, 'classify-document', {
      file: { base64: JPEG_BASE64 },
    });
    expect(result.body?.auditOnly).toBe('kept');
    expect(result.body?.data[0]?.auditOnly).toBe('kept');
    expect(result.body?.metadata?.filesInfo?.[0]?.sha256).toBe('ab');
  });

  it('classify uses the caller filename and content type for the part', async () => {
    const { vendor } = await callFake({ body: classifySample }, 'classify-document', {
      file: { base64: JPEG_BASE64, filename: 'cnh.pdf', contentType: 'application/pdf' },
    });
    expect(multipartOf(vendor.requests[0]!)).toMatchObject([
      { name: 'documento', filename: 'cnh.pdf', contentType: 'application/pdf' },
    ]);
  });

  it('classify sends a url file the link way, as JSON { urls: { arquivo1 } }', async () => {
    const { vendor } = await callFake({ body: classifySample }, 'classify-document', {
      file: { url: 'https://files.example/doc.jpg' },
    });
    const [request] = vendor.requests;
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.body.toString())).toEqual({
      urls: { arquivo1: 'https://files.example/doc.jpg' },
    });
  });

  it('classify sends base64 JSON { base64: { arquivo1 } } when the client is set to', async () => {
    const vendor = await startFakeVendor(replyJson(200, classifySample));
    await clientFor(vendor, { classifyUpload: 'base64' }).call(
      'classify-document',
      parsed('classify-document', { file: { base64: JPEG_BASE64 } }),
    );
    expect(JSON.parse(vendor.requests[0]!.body.toString())).toEqual({ base64: { arquivo1: JPEG_BASE64 } });
  });

  it('classify treats an empty data list as an ok answer (no document identified)', async () => {
    const vendor = await startFakeVendor((_, response) => {
      json(response, 200, { id: 'c', version: 'v3', data: [], metadata: { timeSpent: 1 } });
    });
    const result = await clientFor(vendor).call(
      'classify-document',
      parsed('classify-document', { file: { base64: JPEG_BASE64 } }),
    );
    expect(result.outcome).toBe('ok');
    expect(result.body?.data).toEqual([]);
  });

  it('classify keeps a path prefix of the base URL', async () => {
    const vendor = await startFakeVendor(replyJson(200, classifySample));
    await clientFor(vendor, { baseUrl: `${vendor.url}/vendor/` }).call(
      'classify-document',
      parsed('classify-document', {
        file: { base64: JPEG_BASE64 },
      }),
    );
    expect(vendor.requests[0]?.path).toBe('/vendor/classify/v3');
  });
});
