/** Small string helpers shared by the document checks. */

/** Every character that is not an ASCII digit removed. Never pads and never strips zeros. */
export function onlyDigits(value: string): string {
  return value.replace(/\D/g, '');
}

/** Removes the punctuation of the official masks (`.`, `-`, `/`), keeping letters and digits. */
export function stripMask(value: string): string {
  return value.replace(/[./-]/g, '');
}

/** True for "00000000000", "1111..." and the like: check-digit valid, never issued. */
export function isRepeatedCharacter(value: string): boolean {
  return value.length > 0 && value === value.charAt(0).repeat(value.length);
}
