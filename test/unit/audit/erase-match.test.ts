/**
 * Issue 50, finding 5: erase listed the messages whose key or params named the person, and
 * missed those holding the identifier elsewhere (metadata, an unparseable request's bytes and
 * its dead letter's `raw`, a vendor's answer). The search of a message's bytes finds every
 * textual form of the identifier wherever it is.
 */
import { describe, expect, it } from 'vitest';
import { bytesHold, recordHolds, subjectPattern } from '../../../src/audit/erase-match.js';
import type { RawRecord } from '../../../src/audit/records.js';
import { cpfCheckDigits } from '../../../src/contract/documents/cpf.js';

const cpf = `402581897${cpfCheckDigits('402581897')}`;
const masked = `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;
const person = subjectPattern({ kind: 'tax-id', value: cpf });

function record(parts: Partial<Pick<RawRecord, 'key' | 'value' | 'headers'>>): RawRecord {
  return {
    topic: 't',
    partition: 0,
    offset: '0',
    timestamp: 0,
    key: null,
    value: null,
    headers: {},
    ...parts,
  };
}

const json = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
/** The Confluent wire format: magic byte, schema id, then the encoded value. */
const framed = (value: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), value]);

describe("a search of a message's bytes for an identifier", () => {
  it.each<[string, RawRecord]>([
    ['params, bare', record({ value: json({ params: { taxId: cpf } }) })],
    ['metadata, masked', record({ value: json({ params: { taxId: 'x' }, metadata: { client: masked } }) })],
    [
      'a vendor answer, inside other text',
      record({ value: json({ response: { data: { owner: `CPF ${masked} (titular)` } } }) }),
    ],
    ['a framed value', record({ value: framed(json({ response: { documentNumber: cpf } })) })],
    [
      'Avro binary (a string is its length then UTF-8)',
      record({ value: framed(Buffer.concat([Buffer.from([0x16]), Buffer.from(cpf)])) }),
    ],
    [
      'an unparseable request',
      record({ value: Buffer.from(`{"requestId":"r1","params":{"taxId":"${cpf}"`) }),
    ],
    [
      "a dead letter's raw (base64)",
      record({
        value: json({
          request: { raw: Buffer.from(`{"params":{"taxId":"${masked}"`).toString('base64') },
        }),
      }),
    ],
    [
      'base64 inside base64 (the raw of a request carrying a document)',
      record({
        value: json({
          request: {
            raw: Buffer.from(
              JSON.stringify({ params: { file: { base64: Buffer.from(`RG ${cpf}`).toString('base64') } } }),
            ).toString('base64'),
          },
        }),
      }),
    ],
    ['the key', record({ key: Buffer.from(masked), value: json({ params: {} }) })],
    ['a header', record({ value: json({}), headers: { 'x-client': Buffer.from(cpf) } })],
    [
      'a JSON-escaped slash',
      record({ value: Buffer.from(String.raw`{"cpf":"402.581.897\/${cpf.slice(9)}"}`) }),
    ],
  ])('finds it in %s', (_where, message) => {
    expect(recordHolds(message, person)).toBe(true);
  });

  it('finds nothing in a message of someone else, or digits that only share a part', () => {
    const other = `402581898${cpfCheckDigits('402581898')}`;
    expect(
      recordHolds(record({ key: Buffer.from(other), value: json({ params: { taxId: other } }) }), person),
    ).toBe(false);
    expect(bytesHold(Buffer.from(cpf.slice(0, 10)), person)).toBe(false);
    // Three characters between two digits are no mask.
    expect(bytesHold(Buffer.from(`${cpf.slice(0, 3)}...${cpf.slice(3)}`), person)).toBe(false);
    expect(recordHolds(record({}), person)).toBe(false);
  });

  it('finds a CNPJ bare or masked, its letters in either case, and a plate with or without its hyphen', () => {
    const company = subjectPattern({ kind: 'tax-id', value: 'AAA12345678917' });
    expect(bytesHold(Buffer.from('{"cnpj":"aa.a12.345/6789-17"}'), company)).toBe(true);
    expect(bytesHold(Buffer.from('AAA12345678917'), company)).toBe(true);
    // Another company with the same digits is another subject.
    expect(bytesHold(Buffer.from('AAL12345678917'), company)).toBe(false);
    const plate = subjectPattern({ kind: 'plate', value: 'ABC1D23' });
    expect(bytesHold(Buffer.from('placa abc-1d23'), plate)).toBe(true);
    expect(bytesHold(Buffer.from('"licensePlate":"ABC1D23"'), plate)).toBe(true);
    expect(bytesHold(Buffer.from('ABC1D24'), plate)).toBe(false);
  });
});
