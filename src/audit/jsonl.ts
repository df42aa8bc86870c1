import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { DecodedRecord } from './records.js';

/**
 * The JSON Lines format of `replay`: one message per line, its coordinates first so that a
 * line can always be traced back to the log (`origin` in the envelopes uses the same three).
 * A value that could not be decoded is shown as `raw` (base64 of the bytes) with `error`,
 * and no `value` member.
 */
export interface AuditLine {
  topic: string;
  partition: number;
  /** A string, as in the envelopes' `origin.offset`: offsets are 64-bit. */
  offset: string;
  /** ISO 8601, UTC, millisecond precision. */
  timestamp: string;
  key: string | null;
  headers: Record<string, string | string[]>;
  value?: unknown;
  raw?: string;
  error?: string;
}

export function toAuditLine(record: DecodedRecord): AuditLine {
  const { topic, partition, offset, timestamp, value } = record.source;
  const line: AuditLine = {
    topic,
    partition,
    offset,
    timestamp: new Date(timestamp).toISOString(),
    key: record.key,
    headers: record.headers,
  };
  if (record.error === undefined) line.value = record.value;
  else {
    line.raw = value === null ? '' : value.toString('base64');
    line.error = record.error;
  }
  return line;
}

export function formatLine(line: object): string {
  return `${JSON.stringify(line)}\n`;
}

/** Where lines go: stdout or a file. `write` waits when the stream's buffer is full. */
export interface LineSink {
  write(line: object): Promise<void>;
  /** `completed`: whether the command succeeded (a file is only put in place then). */
  close(completed?: boolean): Promise<void>;
}

/**
 * The reader of the output stopped early (`replay … | head`): not a failure, the command just
 * stops, quietly, the way command-line tools end on a closed pipe.
 */
export class OutputClosedError extends Error {
  constructor(cause: unknown) {
    super('the reader of the output has gone', { cause });
    this.name = 'OutputClosedError';
  }
}

export function streamSink(stream: Writable, options: { end: boolean } = { end: false }): LineSink {
  // A write to a closed pipe fails later, as an 'error' event: kept here and thrown by the next
  // write (without a listener, the event would crash the process).
  let failure: Error | undefined;
  stream.on('error', (error: Error) => {
    failure ??= sinkError(error);
  });
  return {
    async write(line) {
      if (failure) throw failure;
      if (stream.write(formatLine(line))) return;
      try {
        await once(stream, 'drain');
      } catch (error) {
        throw sinkError(error);
      }
    },
    async close() {
      if (!options.end) return;
      stream.end();
      if (!stream.writableFinished) await once(stream, 'finish');
    },
  };
}

function sinkError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(String(error));
  return (error as NodeJS.ErrnoException).code === 'EPIPE' ? new OutputClosedError(error) : error;
}

/**
 * Writes beside `path` and puts the file in place (replacing one already there) only when the
 * command completes: a command that fails, a topic misspelt or a window empty, leaves an earlier
 * export as it was. Readable by its owner only: an export holds personal data. Fails at once,
 * naming the file, when it cannot be written.
 */
export async function fileSink(path: string): Promise<LineSink> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory()) throw new Error(`cannot write ${path}: EISDIR`);
  // A device, a pipe or a FIFO (/dev/stdout, process substitution) is written as it is.
  if (existing && !existing.isFile()) return openedSink(path, createWriteStream(path, { flags: 'w' }));
  const partial = `${path}.partial-${process.pid}`;
  const sink = await openedSink(path, createWriteStream(partial, { flags: 'w', mode: 0o600 }));
  return {
    write: (line) => sink.write(line),
    async close(completed = true) {
      try {
        await sink.close();
        if (completed) await rename(partial, path);
      } finally {
        await rm(partial, { force: true });
      }
    },
  };
}

/** The stream once open, as a sink; an error naming `path` (not a partial file) when it cannot be. */
async function openedSink(path: string, stream: WriteStream): Promise<LineSink> {
  try {
    await once(stream, 'open');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new Error(`cannot write ${path}: ${code}`, { cause: error });
  }
  return streamSink(stream, { end: true });
}
