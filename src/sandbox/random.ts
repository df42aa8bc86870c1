import { createHash } from 'node:crypto';

/** sha256 of a normalised input: seeds the generators and names the billing fingerprint. */
export function sha256(input: string | Uint8Array): Buffer {
  return createHash('sha256').update(input).digest();
}

export function sha256Hex(input: string | Uint8Array): string {
  return createHash('sha256').update(input).digest('hex');
}

/**
 * A small deterministic generator (sfc32) seeded by a digest, so that the same normalised
 * input always produces the same synthetic record. Not for security.
 */
export class Prng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: Buffer) {
    this.a = seed.readUInt32BE(0);
    this.b = seed.readUInt32BE(4);
    this.c = seed.readUInt32BE(8);
    this.d = seed.readUInt32BE(12);
    for (let i = 0; i < 12; i++) this.next();
  }

  static from(text: string): Prng {
    return new Prng(sha256(text));
  }

  /** A float in [0, 1). */
  next(): number {
    this.a |= 0;
    this.b |= 0;
    this.c |= 0;
    this.d |= 0;
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return (t >>> 0) / 4294967296;
  }

  /** An integer in [min, max], both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  bool(probability = 0.5): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('pick from an empty list');
    return item;
  }

  /** Distinct items, in the order drawn. */
  sample<T>(items: readonly T[], count: number): T[] {
    const pool = [...items];
    const out: T[] = [];
    while (out.length < count && pool.length > 0) {
      const [item] = pool.splice(Math.floor(this.next() * pool.length), 1);
      if (item !== undefined) out.push(item);
    }
    return out;
  }

  digits(count: number): string {
    let out = '';
    for (let i = 0; i < count; i++) out += String(Math.floor(this.next() * 10));
    return out;
  }

  letters(count: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'): string {
    let out = '';
    for (let i = 0; i < count; i++) out += alphabet.charAt(Math.floor(this.next() * alphabet.length));
    return out;
  }

  /** A UTC instant between two years (inclusive), as epoch milliseconds rounded to the second. */
  instant(fromYear: number, toYear: number): number {
    const from = Date.UTC(fromYear, 0, 1);
    const to = Date.UTC(toYear, 11, 31, 23, 59, 59);
    return Math.floor((from + this.next() * (to - from)) / 1000) * 1000;
  }

  /** A v4-shaped UUID drawn from this generator (deterministic, unlike randomUUID). */
  uuid(): string {
    const hex = (n: number) => {
      let s = '';
      for (let i = 0; i < n; i++) s += Math.floor(this.next() * 16).toString(16);
      return s;
    };
    const variant = (8 + Math.floor(this.next() * 4)).toString(16);
    return `${hex(8)}-${hex(4)}-4${hex(3)}-${variant}${hex(3)}-${hex(12)}`;
  }
}

/** `YYYY-MM-DDThh:mm:ss`, the zone-less form of the lawsuit samples. */
export function isoLocal(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19);
}

/** `YYYY-MM-DD`. */
export function isoDate(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 10);
}

/** `DD/MM/YYYY`, the form of the registry samples. */
export function brDate(epochMs: number): string {
  const iso = isoDate(epochMs);
  return `${iso.slice(8, 10)}/${iso.slice(5, 7)}/${iso.slice(0, 4)}`;
}
