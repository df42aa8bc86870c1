/**
 * Calendar dates as the vendor writes them: `YYYY-MM-DD` in the lawsuit filters
 * (vendor-api.md "GET /lawsuits/v2") and `DD/MM/YYYY` for the eSocial birth date
 * ("GET /esocial-qualificacao-cadastral"). "Real" means the day exists in that month and
 * year (29/02 only in leap years); years 0001 to 9999.
 */
export function isRealDate(year: number, month: number, day: number): boolean {
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const date = new Date(Date.UTC(2000, month - 1, day));
  date.setUTCFullYear(year);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function isValidIsoDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  return isRealDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

export function isValidBrDate(value: string): boolean {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value);
  if (!match) return false;
  return isRealDate(Number(match[3]), Number(match[2]), Number(match[1]));
}

/** `DD/MM/YYYY` → `YYYY-MM-DD`; the input must be valid. */
export function brDateToIso(value: string): string {
  const [day, month, year] = value.split('/');
  return `${year ?? ''}-${month ?? ''}-${day ?? ''}`;
}
