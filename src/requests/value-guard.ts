import { isUtf8 } from 'node:buffer';
import { isFramed } from '../producers/value-codec.js';

/**
 * Checks a request value's bytes before anything parses them: JSON.parse, the registry's
 * validator and zod all recurse, so a value nested a few thousand levels deep overflows the
 * stack in whichever comes first, and invalid UTF-8 would be decoded lossily into U+FFFD
 * (two requestIds differing in one invalid byte would become one). One linear pass, no
 * recursion. Returns the reason to dead-letter the value with, or undefined when it is fine.
 */
export function checkRequestBytes(value: Buffer, maxDepth: number): string | undefined {
  const start = isFramed(value) ? 5 : 0;
  const json = start === 0 ? value : value.subarray(start);
  if (!isUtf8(json)) return 'value is not valid UTF-8';
  const depth = nestingDepthOver(json, maxDepth);
  return depth === undefined ? undefined : `value nests JSON deeper than MAX_JSON_DEPTH (${maxDepth})`;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x7b, 0x5b]);
const CLOSERS = new Set([0x7d, 0x5d]);

/** The depth reached once it passes `maxDepth`, else undefined; brackets inside strings do not count. */
function nestingDepthOver(json: Buffer, maxDepth: number): number | undefined {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i += 1) {
    const byte = json[i];
    if (inString) {
      if (byte === BACKSLASH) i += 1;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte !== undefined && OPENERS.has(byte)) {
      depth += 1;
      if (depth > maxDepth) return depth;
    } else if (byte !== undefined && CLOSERS.has(byte)) {
      depth -= 1;
    }
  }
  return undefined;
}
