/**
 * Seeded randomness for the document generators, so that tests and sandbox data are
 * reproducible from a number. mulberry32: tiny, fast and well distributed enough for test
 * data (it is not, and need not be, cryptographically strong).
 */
export type RandomSource = () => number;

export function seededRandom(seed: number): RandomSource {
  let state = Math.trunc(seed) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A seeded source when a seed is given, Math.random otherwise. */
export function randomSource(seed?: number): RandomSource {
  return seed === undefined ? Math.random : seededRandom(seed);
}

export const DIGITS = '0123456789';
export const UPPER_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

export function randomChars(random: RandomSource, alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet.charAt(Math.floor(random() * alphabet.length));
  return out;
}

export function randomDigits(random: RandomSource, length: number): string {
  return randomChars(random, DIGITS, length);
}

export function randomInt(random: RandomSource, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}
