import { z } from 'zod';
import {
  brDateToIso,
  chassisProblem,
  cnjProblem,
  cnpjProblem,
  cpfProblem,
  isValidBrDate,
  isValidUf,
  nisProblem,
  normalizeChassis,
  normalizeCnj,
  normalizeCnpj,
  normalizeCpf,
  normalizeNis,
  normalizePlate,
  normalizeTaxId,
  normalizeUf,
  plateProblem,
  renavamProblem,
  taxIdProblem,
} from '../contract/documents/index.js';
import {
  base64Text,
  checkedText,
  documentField,
  exactlyOneMessage,
  httpUrl,
  nonEmptyText,
  presentKeys,
  strictShape,
  text,
} from '../contract/param-rules/fields.js';
import { formatIssues, toParamsIssues, type ParamsIssue } from '../contract/param-rules/issues.js';
import { dateFilterProblems, lawsuitFilterShape } from '../contract/param-rules/lawsuit-filters.js';
import { FACE_DOCUMENT_TYPES } from '../contract/vocabulary.js';
import type { Operation } from './operations.js';

/**
 * The `params` of each operation (shared/contract.md, "Operations"), with the vendor's own
 * names and spellings. Parsing normalises: tax ids, NIS and lawsuit numbers lose their mask
 * (leading zeros kept), plates and chassis become upper case without hyphen, UFs upper case.
 * The vendor accepts masked tax ids on the registry lookups, but GET /lawsuits/v2 matches
 * `taxId` on digits only, so every operation sends the unmasked form for one behaviour.
 * Objects are strict: an unknown member is a typo caught before a paid call.
 */

const cpf = () => documentField(cpfProblem, normalizeCpf);
const cnpj = () => documentField(cnpjProblem, normalizeCnpj);
const taxId = () => documentField(taxIdProblem, normalizeTaxId);
const plate = () => documentField(plateProblem, normalizePlate);
const uf = () =>
  checkedText(isValidUf, 'must be one of the 27 state codes (AC, AL, ..., TO)').transform(normalizeUf);

// --- files -----------------------------------------------------------------------------

export type FileInput = { base64: string; filename?: string; contentType?: string } | { url: string };
const FILE_KEYS = ['base64', 'url'];
const MEDIA_TYPE = /^[a-z]+\/[a-z0-9.+-]+$/i;

const fileInput = strictShape({
  base64: base64Text().optional(),
  filename: nonEmptyText(255).optional(),
  contentType: checkedText(
    (value) => MEDIA_TYPE.test(value),
    'must be a media type such as image/jpeg',
  ).optional(),
  url: httpUrl().optional(),
})
  .superRefine((file, ctx) => {
    const present = presentKeys(file, FILE_KEYS);
    if (present.length !== 1) {
      ctx.addIssue({ code: 'custom', message: exactlyOneMessage(FILE_KEYS, present) });
    } else if (file.url !== undefined && presentKeys(file, ['filename', 'contentType']).length > 0) {
      ctx.addIssue({ code: 'custom', message: 'filename and contentType go with base64 only' });
    }
  })
  .transform((file): FileInput => {
    if (file.base64 === undefined) return { url: file.url ?? '' };
    const { url: _url, ...upload } = file;
    return { ...upload, base64: file.base64 };
  });

// base64 of a JPEG starts with "/9j/" (bytes FF D8 FF): the selfie must be JPEG/JPG
// (vendor-api.md, "POST /ocr-by-face/v1/tax-id/{CPF}"), so a PNG is refused before paying.
const jpegBase64 = base64Text().refine(
  (value) => value.startsWith('/9j/'),
  'must be a JPEG image (JPEG/JPG only)',
);

export type SelfieInput = { base64: string } | { url: string };
const selfieInput = strictShape({ base64: jpegBase64.optional(), url: httpUrl().optional() })
  .superRefine((selfie, ctx) => {
    const present = presentKeys(selfie, FILE_KEYS);
    if (present.length !== 1)
      ctx.addIssue({ code: 'custom', message: exactlyOneMessage(FILE_KEYS, present) });
  })
  .transform((selfie): SelfieInput =>
    selfie.base64 === undefined ? { url: selfie.url ?? '' } : { base64: selfie.base64 },
  );

// --- lawsuits --------------------------------------------------------------------------

export const LAWSUIT_SEARCH_KEYS = ['taxId', 'taxIdFull', 'partName', 'name', 'exactPartName', 'exactName'];

/** Searches the spec marks "announced, not yet available", with the available near equivalent. */
const NOT_YET_AVAILABLE: Readonly<Record<string, string>> = {
  taxIdFull: 'taxId',
  name: 'partName',
  exactName: 'exactPartName',
};

// The party search matches tax ids in digits only (vendor-api.md, GET /lawsuits/v2): an
// alphanumeric CNPJ cannot be searched there, and is refused before a billed call.
const digitsTaxId = () =>
  taxId().refine((value) => /^\d+$/.test(value), {
    message:
      'the vendor searches parties by tax ids in digits only (vendor-api.md, GET /lawsuits/v2); an alphanumeric CNPJ cannot be searched',
  });

const lawsuitsByParty = strictShape({
  taxId: digitsTaxId().optional(),
  taxIdFull: text().optional(),
  partName: nonEmptyText(300).optional(),
  name: text().optional(),
  exactPartName: nonEmptyText(300).optional(),
  exactName: text().optional(),
  ...lawsuitFilterShape,
})
  .superRefine((value, ctx) => {
    const present = presentKeys(value, LAWSUIT_SEARCH_KEYS);
    if (present.length !== 1)
      ctx.addIssue({ code: 'custom', message: exactlyOneMessage(LAWSUIT_SEARCH_KEYS, present) });
    for (const key of present) {
      const instead = NOT_YET_AVAILABLE[key];
      if (instead === undefined) continue;
      const message = `the vendor has announced this search but not made it available yet (vendor-api.md, GET /lawsuits/v2); search with ${instead} instead`;
      ctx.addIssue({ code: 'custom', path: [key], message });
    }
    for (const problem of dateFilterProblems(value)) {
      ctx.addIssue({ code: 'custom', path: [problem.path], message: problem.message });
    }
  })
  // The refinement guarantees these are absent; dropping them narrows the type.
  .transform(({ taxIdFull: _taxIdFull, name: _name, exactName: _exactName, ...rest }) => rest);

// --- vehicles and registries -----------------------------------------------------------

const VEHICLE_KEYS = ['licensePlate', 'registryId', 'chassis'];
const vehicle = strictShape({
  licensePlate: plate().optional(),
  registryId: documentField(renavamProblem, (value) => value).optional(),
  chassis: documentField(chassisProblem, normalizeChassis).optional(),
}).superRefine((value, ctx) => {
  const present = presentKeys(value, VEHICLE_KEYS);
  if (present.length !== 1)
    ctx.addIssue({ code: 'custom', message: exactlyOneMessage(VEHICLE_KEYS, present) });
});

// State registration numbers have 27 state-specific formats and check digits; only the
// characters are checked here, and the value travels exactly as given.
const stateRegistrationNumber = checkedText(
  (value) => /^[0-9A-Za-z./-]{2,20}$/.test(value) && /\d/.test(value),
  'must be 2 to 20 letters, digits, dots, slashes or hyphens',
);

const stateRegistration = strictShape({
  cnpj: cnpj().optional(),
  cpf: cpf().optional(),
  ie: stateRegistrationNumber.optional(),
  uf: uf().optional(),
}).superRefine((value, ctx) => {
  const problem = stateRegistrationModeProblem(presentKeys(value, ['cnpj', 'cpf', 'ie', 'uf']));
  if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
});

/** vendor-api.md "GET /receita-federal-and-sintegra": exactly one of three search modes. */
function stateRegistrationModeProblem(present: readonly string[]): string | undefined {
  const got = present.join(' + ');
  if (got === 'cnpj' || got === 'cpf + uf' || got === 'ie + uf') return undefined;
  if (got === 'cpf' || got === 'ie') return `uf: is required together with ${got}`;
  const detail = present.length === 0 ? 'got none' : `got ${got}`;
  return `exactly one search mode is required: cnpj, or cpf + uf, or ie + uf; ${detail}`;
}

// --- the table -------------------------------------------------------------------------

export const paramsSchemas = {
  'classify-document': strictShape({ file: fileInput }),
  'face-document-lookup': strictShape({
    cpf: cpf(),
    selfie: selfieInput,
    documentTypes: z
      .array(z.enum(FACE_DOCUMENT_TYPES, { error: `must be one of ${FACE_DOCUMENT_TYPES.join(', ')}` }), {
        error: 'must be a list',
      })
      .min(1, 'must list at least one type, or be left out for the vendor default')
      .optional(),
  }),
  'lawsuits-by-party': lawsuitsByParty,
  'lawsuits-summary': strictShape({ taxId: taxId() }),
  'lawsuit-by-number': strictShape({ lawsuitNumber: documentField(cnjProblem, normalizeCnj) }),
  vehicle,
  'vehicle-async': strictShape({ licensePlate: plate() }),
  'state-registration': stateRegistration,
  'company-partners': strictShape({ taxId: cnpj() }),
  'esocial-eligibility': strictShape({
    taxId: cpf(),
    birthdate: checkedText(isValidBrDate, 'must be a real date written DD/MM/YYYY').refine(
      (value) => brDateToIso(value) <= new Date().toISOString().slice(0, 10),
      'must not be in the future',
    ),
    nis: documentField(nisProblem, normalizeNis),
    name: nonEmptyText(200),
  }),
} as const satisfies Record<Operation, z.ZodType>;

export type ParamsSchemas = typeof paramsSchemas;
/** Params after parsing (normalised), per operation. */
export type ParamsOf<O extends Operation> = z.output<ParamsSchemas[O]>;
/** Params as a caller may write them (masked tax ids, one value or a list...), per operation. */
export type ParamsInputOf<O extends Operation> = z.input<ParamsSchemas[O]>;

export type LawsuitsByPartyParams = ParamsOf<'lawsuits-by-party'>;

export type { ParamsIssue } from '../contract/param-rules/issues.js';

export type ParseParamsResult<O extends Operation> =
  | { ok: true; operation: O; params: ParamsOf<O> }
  | { ok: false; operation: O; message: string; issues: ParamsIssue[] };

export function parseParams<O extends Operation>(operation: O, value: unknown): ParseParamsResult<O> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const issues = [{ path: 'params', message: 'must be an object' }];
    return { ok: false, operation, message: formatIssues(issues), issues };
  }
  const schema: z.ZodType = paramsSchemas[operation];
  const result = schema.safeParse(value);
  if (result.success) return { ok: true, operation, params: result.data as ParamsOf<O> };
  const issues = toParamsIssues(result.error.issues);
  return { ok: false, operation, message: formatIssues(issues), issues };
}

/** The contract's params check, without the issue list the runtime does not use. */
export function parseRequestParams<O extends Operation>(
  operation: O,
  params: unknown,
): { ok: true; value: ParamsOf<O> } | { ok: false; message: string } {
  const parsed = parseParams(operation, params);
  return parsed.ok ? { ok: true, value: parsed.params } : { ok: false, message: parsed.message };
}
