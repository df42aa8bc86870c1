import { cnpjProblem, normalizeCnpj } from './cnpj.js';
import { cpfProblem, normalizeCpf } from './cpf.js';

export type TaxIdKind = 'cpf' | 'cnpj';

/**
 * Which tax id a value is, by its shape (11 digits → CPF; 14 characters → CNPJ), or undefined
 * when it is neither. Only the shape decides, so the problem reported is the right one.
 */
export function taxIdKind(value: string): TaxIdKind | undefined {
  const bare = value.replace(/[./-]/g, '');
  if (/^\d{11}$/.test(bare)) return 'cpf';
  if (/^[0-9A-Za-z]{12}\d{2}$/.test(bare)) return 'cnpj';
  return undefined;
}

export function taxIdProblem(value: string): string | undefined {
  const kind = taxIdKind(value);
  if (kind === 'cpf') return cpfProblem(value);
  if (kind === 'cnpj') return cnpjProblem(value);
  return 'must be a CPF (11 digits) or a CNPJ (14 characters), bare or masked';
}

export function isValidTaxId(value: string): boolean {
  return taxIdProblem(value) === undefined;
}

/** The unmasked tax id; CNPJ letters upper case; leading zeros kept. */
export function normalizeTaxId(value: string): string {
  return taxIdKind(value) === 'cpf' ? normalizeCpf(value) : normalizeCnpj(value);
}
