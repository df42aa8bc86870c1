import { createHash } from 'node:crypto';
import { PERSONAL_FIELDS } from '../observability/personal-fields.js';

/**
 * Personal data out of sight by default: a tax id shows its last two digits, an image (any
 * base64 payload) its size and sha256, any other personal field (names, birth dates, plates,
 * addresses: the logger's list) nothing. The operator's reveal action shows the value as it
 * is; masking is for the screen, never a substitute for access control.
 */
const TAX_ID = /^(taxid|cpf|cnpj|document|documentnumber)$/i;
const IMAGE = /^(base64|selfie|image|photo|raw)$/i;
/** A tax id in free text (a lawsuit query, an error message), bare or punctuated. */
const TAX_ID_IN_TEXT =
  /\b\d{11}\b|\b\d{14}\b|\b\d{3}\.\d{3}\.\d{3}-\d{2}\b|\b\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}\b/g;

export function maskTaxId(value: string): string {
  const digits = value.replace(/\D/g, '');
  return `${'•'.repeat(Math.max(digits.length - 2, 3))}${digits.slice(-2)}`;
}

export function describeImage(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return `[image: ${bytes.length} bytes, sha256 ${sha256}]`;
}

/**
 * The value with its personal data masked. A personal field is masked whatever its type: a
 * tax id sent as a number, a name sent as an object, and everything under a personal
 * container (`partes`, `qsa`, `addresses`...), as the logger redacts such a field whole.
 */
export function maskValue(value: unknown, name = '', personal = false): unknown {
  const lower = name.toLowerCase();
  const isPersonal = personal || PERSONAL_FIELDS.has(lower) || TAX_ID.test(name) || IMAGE.test(name);
  if (Array.isArray(value)) return value.map((item) => maskValue(item, name, personal));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, maskValue(v, k, isPersonal)]),
    );
  }
  if (typeof value === 'string') {
    if (TAX_ID.test(name)) return maskTaxId(value);
    if (IMAGE.test(name)) return describeImage(value);
    if (isPersonal) return '[masked]';
    return value.replace(TAX_ID_IN_TEXT, (taxId) => maskTaxId(taxId));
  }
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value);
    if (TAX_ID.test(name)) return maskTaxId(digits);
    if (isPersonal) return '[masked]';
    // A tax id sent as a JSON number under a name of the publisher's own: its leading zeros
    // lost, so 9 to 14 digits (an amount or a timestamp that long is masked too, until revealed).
    if (/^\d{9,14}$/.test(digits)) return maskTaxId(digits);
  }
  return value;
}

/**
 * A message key is chosen by the publisher: a tax id, a plate, a lawsuit number (contract.md).
 * Any key shows only its last two characters.
 */
export function maskKey(key: string | null): string | null {
  if (key === null) return null;
  const shown = key.length > 2 ? key.slice(-2) : '';
  return `${'•'.repeat(Math.max(key.length - shown.length, 3))}${shown}`;
}
