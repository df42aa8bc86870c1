/**
 * Chassis number (VIN, ISO 3779): 17 characters, letters and digits without I, O and Q
 * (they read as 1 and 0). Case-insensitive. No check digit: position 9 is a check digit only
 * in North America, and Brazilian VINs do not carry one.
 */
const VIN_SHAPE = /^[0-9A-HJ-NPR-Z]{17}$/i;

export function isValidChassis(value: string): boolean {
  return VIN_SHAPE.test(value);
}

export function chassisProblem(value: string): string | undefined {
  return isValidChassis(value) ? undefined : 'must be 17 letters and digits (a VIN), without I, O or Q';
}

export function normalizeChassis(value: string): string {
  return value.toUpperCase();
}
