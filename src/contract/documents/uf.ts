/** The 26 states and the Federal District, by their two-letter codes. */
export const UFS = [
  'AC',
  'AL',
  'AM',
  'AP',
  'BA',
  'CE',
  'DF',
  'ES',
  'GO',
  'MA',
  'MG',
  'MS',
  'MT',
  'PA',
  'PB',
  'PE',
  'PI',
  'PR',
  'RJ',
  'RN',
  'RO',
  'RR',
  'RS',
  'SC',
  'SE',
  'SP',
  'TO',
] as const;
export type Uf = (typeof UFS)[number];

const UF_SET: ReadonlySet<string> = new Set(UFS);

/** Case-insensitive: "sp" is São Paulo; normalise with normalizeUf before sending. */
export function isValidUf(value: string): boolean {
  return UF_SET.has(value.toUpperCase());
}

export function normalizeUf(value: string): string {
  return value.toUpperCase();
}
