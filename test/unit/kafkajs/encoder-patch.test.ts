/**
 * kafkajs's Encoder as patched (patches/kafkajs+2.2.4+011+encoder-pooled-buffers.patch): buffers from Node's pool, not
 * zero-filled, and unsigned varints written in place. The bytes must stay what Kafka's record
 * format says (LEB128 varints, zigzag for signed ones), checked against values written out by
 * hand and against the decoder kafkajs reads them back with.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

interface Encoder {
  buf: Buffer;
  buffer: Buffer;
  writeUVarInt(value: number): Encoder;
  writeVarInt(value: number): Encoder;
  writeVarIntString(value: string): Encoder;
  writeVarIntBytes(value: Buffer | null): Encoder;
  writeInt32(value: number): Encoder;
}
type EncoderClass = new (initialSize?: number) => Encoder;
interface Decoder {
  readVarInt(): number;
  readUVarInt(): number;
}
type DecoderClass = new (buffer: Buffer) => Decoder;
type RecordEncoder = (record: {
  offsetDelta?: number;
  timestampDelta?: number;
  key: Buffer | null;
  value: Buffer | null;
  headers?: Record<string, string>;
}) => Encoder;

const Encoder = require('kafkajs/src/protocol/encoder') as EncoderClass;
const Decoder = require('kafkajs/src/protocol/decoder') as DecoderClass;
const encodeRecord = require('kafkajs/src/protocol/recordBatch/record/v0') as RecordEncoder;

describe('kafkajs Encoder (patched)', () => {
  it('writes unsigned varints as LEB128, in place', () => {
    const cases: [number, number[]][] = [
      [0, [0x00]],
      [1, [0x01]],
      [127, [0x7f]],
      [128, [0x80, 0x01]],
      [300, [0xac, 0x02]],
      [16_384, [0x80, 0x80, 0x01]],
      [2 ** 31 - 1, [0xff, 0xff, 0xff, 0xff, 0x07]],
      [2 ** 32 - 1, [0xff, 0xff, 0xff, 0xff, 0x0f]],
    ];
    for (const [value, bytes] of cases) {
      expect([...new Encoder().writeUVarInt(value).buffer], String(value)).toEqual(bytes);
    }
  });

  it('writes signed varints zigzagged, and kafkajs reads every one back', () => {
    const values = [0, -1, 1, -64, 64, -65, 1_000_000, -1_000_000, 2 ** 31 - 1, -(2 ** 31)];
    const encoder = new Encoder(1);
    for (const value of values) encoder.writeVarInt(value);
    expect([...new Encoder().writeVarInt(-1).buffer]).toEqual([0x01]);
    expect([...new Encoder().writeVarInt(64).buffer]).toEqual([0x80, 0x01]);
    const decoder = new Decoder(encoder.buffer);
    expect(values.map(() => decoder.readVarInt())).toEqual(values);
  });

  it('grows past its first buffer without losing what it wrote', () => {
    const encoder = new Encoder(1);
    for (let i = 0; i < 1000; i += 1) encoder.writeUVarInt(i * 977).writeInt32(i);
    const decoder = new Decoder(encoder.buffer) as Decoder & { readInt32(): number };
    for (let i = 0; i < 1000; i += 1) {
      expect(decoder.readUVarInt()).toBe(i * 977);
      expect(decoder.readInt32()).toBe(i);
    }
  });

  it('takes small buffers from the shared pool rather than a new ArrayBuffer each', () => {
    const a = new Encoder();
    const b = new Encoder();
    // Buffer.alloc (the original) gives each its own 512-byte ArrayBuffer.
    expect(a.buf.buffer.byteLength).toBeGreaterThan(a.buf.length);
    expect(a.buf.buffer).toBe(b.buf.buffer);
  });

  it('encodes a record with headers to the bytes of the record format', () => {
    const record = encodeRecord({
      offsetDelta: 2,
      timestampDelta: 5,
      key: Buffer.from('k'),
      value: Buffer.from('vv'),
      headers: { h: 'x' },
    });
    expect([...record.buffer]).toEqual([
      // length 13 (zigzag 26), attributes 0, timestampDelta 5 (10), offsetDelta 2 (4)
      26, 0, 10, 4,
      // key: length 1 (2) 'k'; value: length 2 (4) 'vv'
      2, 0x6b, 4, 0x76, 0x76,
      // one header (2): key length 1 (2) 'h', value length 1 (2) 'x'
      2, 2, 0x68, 2, 0x78,
    ]);
  });
});
