import { isoDate, Prng } from '../random.js';
import { faceOutcome, holdsPassport } from '../scenarios.js';
import { personName } from './pools.js';

/** A minimal baseline JPEG (1x1 pixel): stands in for every document image. */
export const TINY_JPEG_BASE64 =
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=';

export type DocumentKind = 'federal-id' | 'passport' | 'driver-license';

/** Values listed by the spec, plus `drivers-license` seen in a sample path. */
const KIND_BY_PARAM: Readonly<Record<string, DocumentKind>> = {
  'federal-id': 'federal-id',
  passport: 'passport',
  driver_license: 'driver-license',
  'drivers-license': 'driver-license',
};

/** Default when no filter is given: the general identity card and the driver license. */
export const DEFAULT_DOCUMENT_KINDS: readonly DocumentKind[] = ['federal-id', 'driver-license'];

export function documentKindOf(param: string): DocumentKind | undefined {
  return KIND_BY_PARAM[param];
}

export type FaceResult =
  | { kind: 'no-document' }
  | { kind: 'no-match'; data: { match: false; similarity: number } }
  | { kind: 'match'; data: Record<string, unknown> };

/** Outcome for a valid CPF, a selfie digest and the requested kinds (see scenarios.ts). */
export function buildFaceResult(
  cpf: string,
  selfieSha256: string,
  kinds: ReadonlySet<DocumentKind>,
): FaceResult {
  const outcome = faceOutcome(cpf);
  const held: DocumentKind[] = [
    'federal-id',
    'driver-license',
    ...(holdsPassport(cpf) ? (['passport'] as const) : []),
  ];
  const found = held.filter((kind) => kinds.has(kind));
  if (outcome === 'no-document' || found.length === 0) return { kind: 'no-document' };
  const prng = Prng.from(`face:${cpf}:${selfieSha256}`);
  if (outcome === 'no-match') {
    return { kind: 'no-match', data: { match: false, similarity: prng.int(5, 45) / 100 } };
  }
  const person = Prng.from(`person:${cpf}`);
  const born = person.instant(1950, 2005);
  return {
    kind: 'match',
    data: {
      idCards: found.map(() => ({ base64: TINY_JPEG_BASE64 })),
      similarity: prng.int(850, 999) / 1000,
      match: true,
      // The sample spells the birth date member `birthdate` (spec, face-based retrieval record).
      ocr: {
        taxId: cpf,
        name: personName(person),
        birthdate: isoDate(born),
        mothersName: personName(person),
        fathersName: personName(person),
        issuedAt: isoDate(person.instant(2012, 2024)),
      },
    },
  };
}
