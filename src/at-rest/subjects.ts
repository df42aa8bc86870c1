import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { isValidCnpj } from '../contract/documents/cnpj.js';
import { isValidCpf } from '../contract/documents/cpf.js';

/**
 * The people a stored value is about, found again without keeping their identifiers in clear:
 * each value written to Redis is listed under a keyed hash (HMAC-SHA256, REDIS_INDEX_KEY) of
 * the tax id or plate its request named, in an index entry that expires with the value. The
 * erase command hashes the identifier it is given the same way.
 */
export type SubjectKind = 'tax-id' | 'plate';

export interface DataSubject {
  kind: SubjectKind;
  /** Normalized: a tax id's or a plate's letters and digits, upper case (CNPJs may hold letters). */
  value: string;
}

/** Params that name a person or a company by tax id (contract.md's operations table). */
const TAX_ID_PARAMS = ['cpf', 'cnpj', 'taxId', 'taxIdFull'] as const;
const PLATE_PARAMS = ['licensePlate'] as const;

/**
 * The identifier without its mask: letters and digits, upper case. An alphanumeric CNPJ keeps
 * its letters: with digits only, AAA12345678917 and AAL12345678917 (both valid) were indexed
 * under one digest, and erasing one erased both.
 */
export function normalizeSubject(_kind: SubjectKind, raw: string): string {
  return raw.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
}

/** The tax ids and plates a request's params name (the contract lets each request name one). */
export function subjectsOfParams(params: unknown): DataSubject[] {
  if (typeof params !== 'object' || params === null) return [];
  const record = params as Record<string, unknown>;
  const found: DataSubject[] = [];
  const add = (kind: SubjectKind, raw: unknown): void => {
    if (typeof raw !== 'string') return;
    const value = normalizeSubject(kind, raw);
    if (value !== '' && !found.some((s) => s.kind === kind && s.value === value)) found.push({ kind, value });
  };
  for (const name of TAX_ID_PARAMS) add('tax-id', record[name]);
  for (const name of PLATE_PARAMS) add('plate', record[name]);
  return found;
}

/**
 * The tax ids and plates written anywhere in a text (a message key, a metadata value): a CPF or
 * CNPJ with valid check digits, bare or masked, and plates of either format, hyphen optional,
 * each standing apart from other letters and digits.
 */
export function subjectsInText(text: string): DataSubject[] {
  const found: DataSubject[] = [];
  const add = (kind: SubjectKind, raw: string): void => {
    const value = normalizeSubject(kind, raw);
    if (!found.some((s) => s.kind === kind && s.value === value)) found.push({ kind, value });
  };
  for (const [raw] of text.matchAll(CPF_IN_TEXT)) {
    const digits = raw.replace(/\D/g, '');
    if (isValidCpf(digits)) add('tax-id', digits);
  }
  for (const [raw] of text.matchAll(CNPJ_IN_TEXT)) {
    const bare = normalizeSubject('tax-id', raw);
    if (isValidCnpj(bare)) add('tax-id', bare);
  }
  for (const [raw] of text.matchAll(PLATE_IN_TEXT)) add('plate', raw);
  return found;
}

const CPF_IN_TEXT = /(?<![0-9A-Za-z])\d{3}\.?\d{3}\.?\d{3}-?\d{2}(?![0-9A-Za-z])/g;
const CNPJ_IN_TEXT =
  /(?<![0-9A-Za-z])[0-9A-Za-z]{2}\.?[0-9A-Za-z]{3}\.?[0-9A-Za-z]{3}\/?[0-9A-Za-z]{4}-?\d{2}(?![0-9A-Za-z])/g;
const PLATE_IN_TEXT = /(?<![0-9A-Za-z])[A-Za-z]{3}-?\d[A-Za-z0-9]\d{2}(?![0-9A-Za-z])/g;

/**
 * Everyone a request names, so that a value stored for it is found again by any of them: the
 * tax ids and plates of its params, of its message key and of its metadata values.
 */
export function subjectsOfRequest(request: {
  params?: unknown;
  key?: Buffer | string | null | undefined;
  metadata?: Readonly<Record<string, string>> | undefined;
}): DataSubject[] {
  const found = subjectsOfParams(request.params);
  const texts = [
    ...(request.key === null || request.key === undefined ? [] : [request.key.toString()]),
    ...Object.values(request.metadata ?? {}),
  ];
  for (const text of texts)
    for (const subject of subjectsInText(text))
      if (!found.some((s) => s.kind === subject.kind && s.value === subject.value)) found.push(subject);
  return found;
}

/** A message key read as a tax id (11 or 14 digits) or a plate (Brazilian, old or Mercosul). */
export function subjectOfKey(key: string): DataSubject | undefined {
  const digits = normalizeSubject('tax-id', key);
  if (/^[\d.\-/\s]+$/.test(key) && (digits.length === 11 || digits.length === 14))
    return { kind: 'tax-id', value: digits };
  const plate = normalizeSubject('plate', key);
  if (/^[A-Za-z0-9\-\s]+$/.test(key) && /^[A-Z]{3}\d[A-Z0-9]\d{2}$/.test(plate))
    return { kind: 'plate', value: plate };
  return undefined;
}

/** Keyed hashes of subjects; the key never leaves this object. */
export class SubjectIndex {
  // A KeyObject made once: createHmac handed raw bytes makes one per digest (about 7x the
  // CPU of a digest with the KeyObject, on this machine).
  readonly #key: KeyObject;

  constructor(key: Buffer | string) {
    this.#key = createSecretKey(Buffer.isBuffer(key) ? Buffer.from(key) : Buffer.from(key, 'utf8'));
  }

  digest(subject: DataSubject): string {
    return createHmac('sha256', this.#key).update(`${subject.kind}:${subject.value}`).digest('hex');
  }

  /**
   * A key of its own for another keyed hash of the deployment (HKDF-SHA256, `purpose` as its
   * info): the same on every replica, never the index key, and no digest of one use matches
   * one of another.
   */
  deriveKey(purpose: string): KeyObject {
    return createSecretKey(Buffer.from(hkdfSync('sha256', this.#key, Buffer.alloc(0), purpose, 32)));
  }
}
