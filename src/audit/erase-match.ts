import type { DataSubject } from '../at-rest/subjects.js';
import type { IHeaders } from '../kafka/client.js';
import type { RawRecord } from './records.js';

/**
 * Whether a message holds a data subject's identifier anywhere, as a search of its bytes would
 * find it: in its key, its value and its header values, whatever field holds it (params,
 * metadata, a vendor's answer, the raw bytes of an unparseable request) and whether or not the
 * value can be decoded. Text in JSON and in Avro's binary encoding is UTF-8, where an ASCII
 * letter or digit is the one byte it is in ASCII: the bytes are searched as they are, read as
 * latin1 (one character per byte). Base64 inside (a dead letter's `raw`, a document's file) is
 * decoded and searched in turn.
 */

/**
 * What may stand between an identifier's letters and digits where it is written: the masks'
 * dots, hyphens and slashes, spaces, and a JSON escape's backslash (`\/`); two at most.
 */
const BETWEEN = String.raw`[\s./\\-]{0,2}`;

/**
 * Every textual form of the identifier: a CPF bare (00000000000) or masked (000.000.000-00),
 * a CNPJ bare or masked, numeric or alphanumeric (00.000.000/0000-00), a plate with or without
 * its hyphen; letters in either case.
 */
export function subjectPattern(subject: DataSubject): RegExp {
  // The value is normalized: ASCII letters (upper case) and digits only, nothing to escape.
  return new RegExp(Array.from(subject.value.matchAll(/[A-Z0-9]/g), ([c]) => c).join(BETWEEN), 'i');
}

/** A run of base64 long enough to hold an identifier (11 bytes make 16 characters). */
const BASE64_RUN = /[A-Za-z0-9+/]{16,}={0,2}/g;
/** Base64 inside base64 (a dead letter of a request carrying a file) is decoded too; no deeper. */
const MAX_DECODES = 2;

export function bytesHold(bytes: Buffer, pattern: RegExp, decoded = 0): boolean {
  const text = bytes.toString('latin1');
  if (pattern.test(text)) return true;
  if (decoded >= MAX_DECODES) return false;
  for (const [run] of text.matchAll(BASE64_RUN))
    if (bytesHold(Buffer.from(run, 'base64'), pattern, decoded + 1)) return true;
  return false;
}

/** Whether the message's key, value or any header value holds the identifier. */
export function recordHolds(record: RawRecord, pattern: RegExp): boolean {
  const parts = [record.key, record.value, ...headerValues(record.headers)];
  return parts.some((bytes) => bytes !== null && bytesHold(bytes, pattern));
}

function headerValues(headers: IHeaders): Buffer[] {
  return Object.values(headers).flatMap((value) =>
    (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((one) =>
      Buffer.isBuffer(one) ? one : Buffer.from(one),
    ),
  );
}
