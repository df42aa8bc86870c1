import { z } from 'zod';
import { str } from './common.js';

/**
 * vendor-api.md, "Face-based retrieval record". The reference table names the OCR birth date
 * `birthDate`, the sample spells it `birthdate`: both are accepted and `birthDate` is filled
 * from either (the original member stays too).
 */
const ocrSchema = z
  .looseObject({
    taxId: str,
    name: str,
    birthDate: str,
    birthdate: str,
    mothersName: str,
    fathersName: str,
    issuedAt: str,
  })
  // Object.assign keeps the loose index signature in the type (a spread would drop it).
  .transform((ocr) => Object.assign({}, ocr, { birthDate: ocr.birthDate ?? ocr.birthdate }));

/** No match is still a 200 whose `data` holds only `match` (false) and `similarity`. */
export const faceRecordSchema = z.looseObject({
  match: z.boolean(),
  similarity: z.number(),
  idCards: z.array(z.looseObject({ base64: z.string() })).optional(),
  ocr: ocrSchema.optional(),
});

/** This response has `id` and `data` only: no `version`, no `metadata`. */
export const faceResponseSchema = z.looseObject({
  id: z.string().optional(),
  data: faceRecordSchema,
});

export type FaceRecord = z.output<typeof faceRecordSchema>;
export type FaceResponse = z.output<typeof faceResponseSchema>;
