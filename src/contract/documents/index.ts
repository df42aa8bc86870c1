/** Brazilian document checks, normalisers and seeded generators (see each file for why). */
export { onlyDigits, stripMask } from './text.js';
export { seededRandom, randomSource, type RandomSource } from './random.js';
export { cpfProblem, isValidCpf, normalizeCpf, formatCpf, generateCpf, cpfCheckDigits } from './cpf.js';
export {
  cnpjProblem,
  isValidCnpj,
  normalizeCnpj,
  formatCnpj,
  generateCnpj,
  cnpjCheckDigits,
  isAlphanumericCnpj,
} from './cnpj.js';
export { taxIdKind, taxIdProblem, isValidTaxId, normalizeTaxId, type TaxIdKind } from './tax-id.js';
export { UFS, isValidUf, normalizeUf, type Uf } from './uf.js';
export {
  isValidPlate,
  plateProblem,
  normalizePlate,
  plateFormat,
  generatePlate,
  type PlateFormat,
} from './plate.js';
export { renavamProblem, isValidRenavam, generateRenavam } from './renavam.js';
export { cnjProblem, isValidCnj, normalizeCnj, formatCnj, generateCnj } from './cnj.js';
export { nisProblem, isValidNis, normalizeNis, formatNis, generateNis } from './nis.js';
export { isRealDate, isValidIsoDate, isValidBrDate, brDateToIso } from './dates.js';
export { isValidChassis, chassisProblem, normalizeChassis, generateChassis } from './chassis.js';
