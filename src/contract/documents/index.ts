/** Brazilian document checks and normalisers (see each file for why). */
export { onlyDigits, stripMask } from './text.js';
export { cpfProblem, isValidCpf, normalizeCpf, cpfCheckDigits } from './cpf.js';
export { cnpjProblem, isValidCnpj, normalizeCnpj, cnpjCheckDigits, isAlphanumericCnpj } from './cnpj.js';
export { taxIdKind, taxIdProblem, isValidTaxId, normalizeTaxId, type TaxIdKind } from './tax-id.js';
export { UFS, isValidUf, normalizeUf, type Uf } from './uf.js';
export { isValidPlate, plateProblem, normalizePlate } from './plate.js';
export { renavamProblem, isValidRenavam } from './renavam.js';
export { cnjProblem, isValidCnj, normalizeCnj } from './cnj.js';
export { nisProblem, isValidNis, normalizeNis } from './nis.js';
export { isRealDate, isValidIsoDate, isValidBrDate, brDateToIso } from './dates.js';
export { isValidChassis, chassisProblem, normalizeChassis } from './chassis.js';
