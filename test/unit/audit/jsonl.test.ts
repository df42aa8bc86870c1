import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import {
  fileSink,
  formatLine,
  OutputClosedError,
  streamSink,
  toAuditLine,
} from '../../../src/audit/jsonl.js';
import { decodeRecord, type RawRecord } from '../../../src/audit/records.js';
import { plainJsonCodec } from '../../../src/producers/value-codec.js';
import { REPLAY_LINE_KEYS } from '../../helpers/replay-line.js';

const raw = (value: Buffer | null): RawRecord => ({
  topic: 'p.results.vehicle',
  partition: 2,
  offset: '9007199254740993',
  timestamp: Date.parse('2026-11-21T10:00:00.123Z'),
  key: Buffer.from('ABC1D23'),
  value,
  headers: { ce_subject: Buffer.from('r-1'), multi: [Buffer.from('a'), 'b'] },
});

describe('JSON Lines of replay', () => {
  it('a decoded message: coordinates, ISO timestamp, key and headers as strings, value', async () => {
    const line = toAuditLine(await decodeRecord(plainJsonCodec(), raw(Buffer.from('{"requestId":"r-1"}'))));
    expect(line).toEqual({
      topic: 'p.results.vehicle',
      partition: 2,
      offset: '9007199254740993',
      timestamp: '2026-11-21T10:00:00.123Z',
      key: 'ABC1D23',
      headers: { ce_subject: 'r-1', multi: ['a', 'b'] },
      value: { requestId: 'r-1' },
    });
    expect(Object.keys(line)).toEqual(REPLAY_LINE_KEYS);
  });

  it('an undecodable value becomes raw base64 with the error, never a crash', async () => {
    const bytes = Buffer.from('not json {');
    const line = toAuditLine(await decodeRecord(plainJsonCodec(), raw(bytes)));
    expect(line.value).toBeUndefined();
    expect(line.raw).toBe(bytes.toString('base64'));
    expect(line.error).toMatch(/not valid JSON/);
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from('{}')]);
    const framedLine = toAuditLine(await decodeRecord(plainJsonCodec(), raw(framed)));
    expect(framedLine.error).toMatch(/schema id 7/);
  });

  it('a tombstone has a null value', async () => {
    expect(toAuditLine(await decodeRecord(plainJsonCodec(), raw(null))).value).toBeNull();
  });

  it('one object per line, newlines inside values escaped', () => {
    const text = formatLine({ a: 'x\ny' });
    expect(text).toBe('{"a":"x\\ny"}\n');
    expect(text.split('\n')).toHaveLength(2);
  });

  it('waits for the stream to drain when its buffer is full', async () => {
    const chunks: string[] = [];
    let release: (() => void) | undefined;
    const slow = new Writable({
      highWaterMark: 8,
      write(chunk: Buffer, _encoding, callback) {
        chunks.push(chunk.toString());
        release = callback;
      },
    });
    const sink = streamSink(slow);
    let written = false;
    const pending = sink.write({ long: 'more than eight bytes' }).then(() => (written = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(written).toBe(false);
    release?.();
    await pending;
    expect(written).toBe(true);
    expect(chunks).toEqual(['{"long":"more than eight bytes"}\n']);
  });

  it('ends a stream it owns on close', async () => {
    const out = new PassThrough();
    const sink = streamSink(out, { end: true });
    await sink.write({ n: 1 });
    out.resume();
    await sink.close();
    expect(out.writableFinished).toBe(true);
  });

  it('turns a closed pipe into OutputClosedError on the next write, and other failures into themselves', async () => {
    const failing = (code: string) =>
      new Writable({
        write(_chunk, _encoding, callback) {
          callback(Object.assign(new Error(`write ${code}`), { code }));
        },
      });
    const closed = streamSink(failing('EPIPE'));
    await closed.write({ n: 1 }).catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    await expect(closed.write({ n: 2 })).rejects.toBeInstanceOf(OutputClosedError);
    const full = streamSink(failing('ENOSPC'));
    await full.write({ n: 1 }).catch(() => undefined);
    await new Promise((resolve) => setImmediate(resolve));
    await expect(full.write({ n: 2 })).rejects.toThrow('write ENOSPC');
  });
});

describe('--out files', () => {
  const dirs: string[] = [];
  const dir = (): string => {
    const made = mkdtempSync(join(tmpdir(), 'vg-out-'));
    dirs.push(made);
    return made;
  };
  afterEach(() => {
    for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it('puts the file in place once the command completed, readable by its owner only', async () => {
    const path = join(dir(), 'export.jsonl');
    writeFileSync(path, 'an earlier export\n');
    const sink = await fileSink(path);
    await sink.write({ n: 1 });
    // Until the command completes, the earlier export is untouched.
    expect(readFileSync(path, 'utf8')).toBe('an earlier export\n');
    await sink.close(true);
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('leaves an earlier export as it was when the command failed, and no partial file', async () => {
    const folder = dir();
    const path = join(folder, 'export.jsonl');
    writeFileSync(path, 'an earlier export\n');
    const sink = await fileSink(path);
    await sink.write({ n: 1 });
    await sink.close(false);
    expect(readFileSync(path, 'utf8')).toBe('an earlier export\n');
    expect(readdirSync(folder)).toEqual(['export.jsonl']);
  });

  it('refuses a folder at once, before anything is read or sent', async () => {
    const folder = dir();
    await expect(fileSink(folder)).rejects.toThrow(`cannot write ${folder}: EISDIR`);
  });

  it('writes a device or a pipe as it is, with no file beside it', async () => {
    const sink = await fileSink('/dev/null');
    expect(existsSync(`/dev/null.partial-${process.pid}`)).toBe(false);
    await sink.write({ n: 1 });
    await sink.close(true);
  });

  it('fails at once, naming the file, when it cannot be written', async () => {
    const path = join(dir(), 'no-such-folder', 'export.jsonl');
    await expect(fileSink(path)).rejects.toThrow(`cannot write ${path}: ENOENT`);
  });
});
