import { z } from 'zod';
import { envelope, metadataSchema, num, str } from './common.js';

/** vendor-api.md, "Classification result" and "File metadata". */
export const classificationSchema = z.looseObject({
  classification: z.looseObject({
    type: z.string(),
    // Types with "none" in the catalog have no subtype.
    subtype: str,
    country: z.string(),
    sides: z.array(
      z.looseObject({
        side: z.enum(['OnlyFront', 'OnlyBack', 'FrontAndBack']),
        page: num,
        fieldname: str,
        confidence: num,
      }),
    ),
  }),
});

const fileInfoSchema = z.looseObject({
  fieldname: str,
  name: str,
  size: num,
  pages: num,
  mimetype: str,
  encoding: str,
  sha256: str,
});

// An empty list is a valid answer: no document identified (vendor-api.md, "Errors").
export const classifyResponseSchema = envelope(z.array(classificationSchema)).extend({
  metadata: metadataSchema.extend({ filesInfo: z.array(fileInfoSchema).optional() }).optional(),
});

export type Classification = z.output<typeof classificationSchema>;
export type ClassifyResponse = z.output<typeof classifyResponseSchema>;
