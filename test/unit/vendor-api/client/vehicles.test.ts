import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../../src/errors.js';
import { clientFor, json, parsed, rejectionOf, replyJson, startFakeVendor } from './fake-vendor.js';
import {
  vehicleNotFoundSample,
  vehicleSample,
  vehicleSearchCreatedSample,
  vehicleSearchDoneSample,
} from './samples.js';

describe('vehicle (synchronous)', () => {
  it('vehicle sends the plate as letters and digits and normalises InvoicedDocumentType', async () => {
    const vendor = await startFakeVendor(replyJson(200, vehicleSample));
    const result = await clientFor(vendor).call('vehicle', parsed('vehicle', { licensePlate: 'abc-1d23' }));
    expect(vendor.requests[0]?.path).toBe('/vehicles/v3');
    expect(vendor.requests[0]?.rawQuery).toBe('licensePlate=ABC1D23');
    expect(result.body?.data.invoicedDocumentType).toBe('CNPJ');
    expect(result.body?.data.InvoicedDocumentType).toBe('CNPJ');
    expect(result.body?.data.invoicedIdentificationNumber).toBe('11222333000181');
    expect(result.body?.data.status).toBeNull();
    expect(result.body?.data.auditOnly).toBe('kept');
  });

  it.each([
    [{ registryId: '00639884962' }, 'registryId=00639884962'],
    [{ chassis: '9bwzzz377vt004251' }, 'chassis=9BWZZZ377VT004251'],
  ])('vehicle searches by %j', async (params, query) => {
    const vendor = await startFakeVendor(replyJson(200, vehicleSample));
    await clientFor(vendor).call('vehicle', parsed('vehicle', params));
    expect(vendor.requests[0]?.rawQuery).toBe(query);
  });

  it('vehicle 404 with the vendor envelope is outcome not_found', async () => {
    const vendor = await startFakeVendor(replyJson(404, vehicleNotFoundSample));
    const result = await clientFor(vendor).call('vehicle', parsed('vehicle', { licensePlate: 'ABC1D23' }));
    expect(result).toMatchObject({
      outcome: 'not_found',
      httpStatus: 404,
      body: undefined,
      vendorId: 'veh-404',
      version: 'v3',
    });
    expect(result.raw).toEqual(vehicleNotFoundSample);
  });

  it('vehicle 404 without the vendor envelope (a proxy, a wrong base URL) is an error, not not_found', async () => {
    const vendor = await startFakeVendor((_, response) => {
      response.writeHead(404, { 'content-type': 'text/html' });
      response.end('<h1>Not Found</h1>');
    });
    const error = await rejectionOf(
      clientFor(vendor).call('vehicle', parsed('vehicle', { licensePlate: 'ABC1D23' })),
    );
    expect(error).toMatchObject({
      code: 'VENDOR_HTTP_ERROR',
      kind: 'upstream_rejected',
      retryable: false,
      httpStatus: 404,
    });
  });
});

describe('vehicle search (asynchronous)', () => {
  it('create sends licensePlate and webhook in a JSON body and reads metadata from metada', async () => {
    const vendor = await startFakeVendor(replyJson(200, vehicleSearchCreatedSample));
    const webhook = {
      url: 'http://127.0.0.1:9/hook',
      method: 'PUT' as const,
      headers: { 'x-token': 't' },
      body: { ref: 'r-1' },
    };
    const result = await clientFor(vendor).call(
      'vehicle-async',
      parsed('vehicle-async', { licensePlate: 'ABC-1234' }),
      { webhook },
    );
    const [request] = vendor.requests;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/vehicles-async/v3');
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request!.body.toString())).toEqual({ licensePlate: 'ABC1234', webhook });
    expect(result).toMatchObject({
      outcome: 'ok',
      vendorId: 'search-1',
      version: 'v3Async',
      timeSpent: 0.05,
    });
    expect(result.body?.metadata).toEqual({ timeSpent: 0.05 });
  });

  it('create without a webhook sends the plate only', async () => {
    const vendor = await startFakeVendor((_, response) => {
      json(response, 200, { id: 's', version: 'v3Async', metadata: { timeSpent: 1 } });
    });
    await clientFor(vendor).call('vehicle-async', parsed('vehicle-async', { licensePlate: 'ABC1D23' }));
    expect(JSON.parse(vendor.requests[0]!.body.toString())).toEqual({ licensePlate: 'ABC1D23' });
  });

  it('create refuses a webhook without an http(s) url before any request', async () => {
    const vendor = await startFakeVendor(replyJson(200, vehicleSearchCreatedSample));
    const error = await rejectionOf(
      clientFor(vendor).call('vehicle-async', parsed('vehicle-async', { licensePlate: 'ABC1D23' }), {
        webhook: { url: 'file:///etc/passwd' },
      }),
    );
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as Error).message).toBe('vehicle-async webhook.url: must be an absolute http or https URL');
    expect(vendor.requests).toHaveLength(0);
  });

  it('create without an id in the answer is a bad response (the search could never be fetched)', async () => {
    const vendor = await startFakeVendor((_, response) => {
      json(response, 200, { version: 'v3Async' });
    });
    const error = await rejectionOf(
      clientFor(vendor).call('vehicle-async', parsed('vehicle-async', { licensePlate: 'ABC1D23' })),
    );
    expect(error).toMatchObject({ code: 'VENDOR_BAD_RESPONSE', kind: 'internal', retryable: false });
  });

  it('get reads the search by id, keeps the sucessful spelling and normalises vehicleData', async () => {
    const vendor = await startFakeVendor(replyJson(200, vehicleSearchDoneSample));
    const result = await clientFor(vendor).getVehicleSearch('search-1');
    expect(vendor.requests[0]?.method).toBe('GET');
    expect(vendor.requests[0]?.path).toBe('/vehicles-async/v3/search-1');
    expect(result.vendorId).toBe('query-7');
    expect(result.body?.data).toMatchObject({ status: 'sucessful', requestId: 'search-1' });
    expect(result.body?.data.vehicleData?.invoicedDocumentType).toBe('CPF');
  });

  it('get reads a pending search with null vehicleData and webhook, and a corrected "successful" spelling', async () => {
    const pending = {
      id: 'q',
      version: 'v3Async',
      data: { status: 'pending', requestId: 's', vehicleData: null, webhook: null },
    };
    const done = {
      ...vehicleSearchDoneSample,
      data: { ...vehicleSearchDoneSample.data, status: 'successful' },
    };
    const bodies = [pending, done];
    const vendor = await startFakeVendor((_, response) => {
      json(response, 200, bodies.shift());
    });
    const client = clientFor(vendor);
    expect((await client.getVehicleSearch('s')).body?.data).toMatchObject({
      status: 'pending',
      vehicleData: null,
    });
    expect((await client.getVehicleSearch('s')).body?.data.status).toBe('sucessful');
  });

  it('get percent-encodes the id and refuses an empty one', async () => {
    const vendor = await startFakeVendor(replyJson(200, vehicleSearchDoneSample));
    const client = clientFor(vendor);
    await client.getVehicleSearch('a/b?c');
    expect(vendor.requests[0]?.path).toBe('/vehicles-async/v3/a%2Fb%3Fc');
    await expect(client.getVehicleSearch('')).rejects.toBeInstanceOf(InvalidRequestError);
  });
});
