import { z } from 'zod';
import { bool, envelope, metadataSchema, num, scalar, str, strList } from './common.js';

/** vendor-api.md, "Vehicle record": "All members may be null when the value is unknown." */
const clientSchema = z.looseObject({
  name: str,
  situation: str,
  size: str,
  opening: str,
  legalNatureCode: scalar,
  legalNatureDescription: str,
  shareCapital: scalar,
  legalName: str,
  documentNumber: str,
  birthDate: str,
  addresses: z
    .array(z.looseObject({ street: str, number: scalar, neighborhood: str, zipcode: str, city: str }))
    .nullish(),
  activities: z.array(z.looseObject({ code: scalar, description: str })).nullish(),
  partners: z.array(z.looseObject({ name: str, document: str, type: str })).nullish(),
  contacts: z.looseObject({ phones: strList, emails: strList }).nullish(),
  motherName: str,
  fatherName: str,
  birthDateStr: str,
});

const restrictionsSchema = z.looseObject({
  renainfRestrictionIndicator: bool,
  renajudRestrictionIndicator: bool,
  robberyOrTheft: bool,
  recall: bool,
  insuranceClaim: bool,
  occurrence: str,
  rfbRestrictionIndicator: bool,
});

/**
 * The invoiced-party members are capitalised in the synchronous lookup
 * (`InvoicedDocumentType`, `InvoicedIdentificationNumber`) and not in the asynchronous one
 * (vendor-api.md, "Vehicle record"). After parsing both lookups carry the lower-case names;
 * the original members are kept as received.
 */
export const vehicleRecordSchema = z
  .looseObject({
    debitTypeGuid: str,
    licensePlate: str,
    preMercosurLicensePlate: str,
    chassis: str,
    chassisRemark: bool,
    engineNumber: str,
    licensePlateState: str,
    licensePlateCity: str,
    renavam: str,
    InvoicedDocumentType: str,
    invoicedDocumentType: str,
    InvoicedIdentificationNumber: str,
    invoicedIdentificationNumber: str,
    invoiceState: str,
    manufactureYear: num,
    modelYear: num,
    maxTractionCapacity: num,
    totalGrossWeight: num,
    restrictions: restrictionsSchema.nullish(),
    status: str,
    brandModel: str,
    brandModelCode: scalar,
    vehicleGroup: str,
    vehicleType: str,
    kind: str,
    color: str,
    fuel: str,
    category: str,
    origin: str,
    potency: scalar,
    cylinders: scalar,
    axle: scalar,
    capacity: scalar,
    fuelTankCapacityLiters: scalar,
    loadCapacityKg: scalar,
    yearOfLastLicensing: scalar,
    activeFlag: scalar,
    proprietaryName: str,
    proprietaryDocumentNumber: str,
    proprietaryDocumentType: str,
    alienationInstitutionName: str,
    alienationInstitutionDocument: str,
    licensedStatus: str,
    licensedUntil: str,
    client: clientSchema.nullish(),
  })
  // Object.assign keeps the loose index signature in the type (a spread would drop it).
  .transform((vehicle) =>
    Object.assign({}, vehicle, {
      invoicedDocumentType: vehicle.invoicedDocumentType ?? vehicle.InvoicedDocumentType,
      invoicedIdentificationNumber:
        vehicle.invoicedIdentificationNumber ?? vehicle.InvoicedIdentificationNumber,
    }),
  );

export const vehicleResponseSchema = envelope(vehicleRecordSchema);

/**
 * POST /vehicles-async/v3 answers `id`, `version`, `metadata`; the reference table calls the
 * last one `metada` (vendor-api.md). Either is accepted and `metadata` is filled from it.
 * `id` is required: without it the search can never be fetched.
 */
export const vehicleSearchCreatedSchema = z
  .looseObject({
    id: z.string().min(1),
    version: z.string().optional(),
    metadata: metadataSchema.optional(),
    metada: metadataSchema.optional(),
  })
  .transform((created) => Object.assign({}, created, { metadata: created.metadata ?? created.metada }));

/**
 * `sucessful` is the vendor's spelling (vendor-api.md, "Asynchronous vehicle search
 * record"). Should the vendor ever correct it, `successful` is read as the same state so
 * downstream code keeps a single value to test.
 */
const searchStatusSchema = z
  .enum(['pending', 'sucessful', 'successful', 'error'])
  .transform((status) => (status === 'successful' ? 'sucessful' : status));

export const vehicleSearchSchema = z.looseObject({
  status: searchStatusSchema,
  requestId: z.string(),
  licensePlate: str,
  createdAt: str,
  vehicleData: vehicleRecordSchema.nullish(),
  webhook: z
    .looseObject({
      url: str,
      method: str,
      headers: z.record(z.string(), z.unknown()).nullish(),
      body: z.unknown(),
    })
    .nullish(),
});

export const vehicleSearchResponseSchema = envelope(vehicleSearchSchema);

export type VehicleRecord = z.output<typeof vehicleRecordSchema>;
export type VehicleResponse = z.output<typeof vehicleResponseSchema>;
export type VehicleSearchCreated = z.output<typeof vehicleSearchCreatedSchema>;
export type VehicleSearch = z.output<typeof vehicleSearchSchema>;
export type VehicleSearchResponse = z.output<typeof vehicleSearchResponseSchema>;
