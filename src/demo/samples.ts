import type { Operation } from '../contract/operations.js';
import { cnpjFor, cpfFor, lawsuitNumberFor, nisFor, plateFor } from '../sandbox/scenarios.js';

/**
 * Valid params for every operation, chosen with the sandbox's trigger rules so that each one
 * reaches a meaningful outcome there. Used by the demo, the integration tests and benchmarks.
 * `index` varies the inputs (different people, plates...) while keeping the scenario.
 */

/** The smallest JPEG header and end marker, padded: enough for the sandbox's magic-byte check. */
const SELFIE_JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8, 0xff, 0xe0]),
  Buffer.alloc(64, 7),
  Buffer.from([0xff, 0xd9]),
]);
const DOCUMENT_IMAGE = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.alloc(256, 3)]);

export function sampleParams(operation: Operation, index = 0): Record<string, unknown> {
  switch (operation) {
    case 'classify-document':
      return {
        file: {
          base64: DOCUMENT_IMAGE.toString('base64'),
          filename: 'rg-frente.png',
          contentType: 'image/png',
        },
      };
    case 'face-document-lookup':
      return { cpf: cpfFor('face-match', index), selfie: { base64: SELFIE_JPEG.toString('base64') } };
    case 'lawsuits-by-party':
      return { taxId: cpfFor('happy', index), courts: ['TJ-SP', 'TRT-2'] };
    case 'lawsuits-summary':
      return { taxId: cpfFor('happy', index) };
    case 'lawsuit-by-number':
      return { lawsuitNumber: lawsuitNumberFor('found', index) };
    case 'vehicle':
      return { licensePlate: plateFor('found', index) };
    case 'vehicle-async':
      return { licensePlate: plateFor('async-sucessful', index) };
    case 'state-registration':
      return { cnpj: cnpjFor('happy', index) };
    case 'company-partners':
      return { taxId: cnpjFor('happy', index) };
    case 'esocial-eligibility':
      return {
        taxId: cpfFor('esocial-top-level', index),
        birthdate: '15/03/1985',
        nis: nisFor('valid', index),
        name: 'MARIA DA SILVA',
      };
  }
}

/** The request's key: what publishers use (a tax id, a plate, a lawsuit number). */
export function sampleKey(params: Record<string, unknown>): string {
  for (const name of ['cpf', 'taxId', 'cnpj', 'licensePlate', 'lawsuitNumber']) {
    const value = params[name];
    if (typeof value === 'string') return value;
  }
  return 'document';
}
