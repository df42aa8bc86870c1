/**
 * Vehicle plates: old format AAA9999 and Mercosur AAA9A99, case-insensitive, with an
 * optional hyphen after the letters. Our own regex rather than validation-br's isCarPlate:
 * the rule is one regex, and the library trims surrounding blanks, which would let a value
 * through that the vendor ("letters and digits only", vendor-api.md "GET /vehicles/v3") is
 * not documented to accept.
 */
const PLATE_SHAPE = /^[A-Z]{3}-?\d[A-Z0-9]\d{2}$/i;

export function isValidPlate(value: string): boolean {
  return PLATE_SHAPE.test(value);
}

export function plateProblem(value: string): string | undefined {
  return isValidPlate(value)
    ? undefined
    : 'must be a plate in the old (AAA9999) or Mercosur (AAA9A99) format, hyphen optional';
}

/** Upper case, hyphen removed: the vendor takes letters and digits only. */
export function normalizePlate(value: string): string {
  return value.toUpperCase().replace('-', '');
}
