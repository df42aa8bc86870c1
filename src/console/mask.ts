import { createHash } from 'node:crypto';

/**
 * Personal data out of sight by default: a tax id shows its last two digits, an image (any
 * base64 payload) its size and sha256, names and plates nothing. The operator's reveal action
 * shows the value as it is; masking is for the screen, never a substitute for access control.
 */
const TAX_ID = /^(taxid|cpf|cnpj|document|documentnumber)$/i;
const IMAGE = /^(base64|selfie|image|photo|raw)$/i;
const HIDDEN = /^(name|names|exactname|mothername|fathername|licenseplate|plate|plates)$/i;

export function maskTaxId(value: string): string {
  const digits = value.replace(/\D/g, '');
  return `${'•'.repeat(Math.max(digits.length - 2, 3))}${digits.slice(-2)}`;
}

export function describeImage(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return `[image: ${bytes.length} bytes, sha256 ${sha256}]`;
}

export function maskValue(value: unknown, name = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => maskValue(item, name));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, maskValue(v, k)]),
    );
  }
  if (typeof value === 'string') {
    if (TAX_ID.test(name)) return maskTaxId(value);
    if (IMAGE.test(name)) return describeImage(value);
    if (HIDDEN.test(name)) return '[masked]';
    // A tax id also travels in free-text places (a lawsuit query): any run of 11 or 14 digits.
    return value.replace(/\b\d{11}\b|\b\d{14}\b/g, (digits) => maskTaxId(digits));
  }
  return value;
}

/** A message key is often the tax id itself. */
export function maskKey(key: string | null): string | null {
  return key === null ? null : (maskValue(key, 'key') as string);
}
