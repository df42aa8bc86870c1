import { createHash } from 'node:crypto';
import type { ResultEnvelope } from '../contract/envelopes.js';

/**
 * Keeps a result under the size limit by replacing large embedded images (`base64` members:
 * the face lookup's `response.data.idCards[].base64`, and the file or selfie the request sent,
 * echoed in `params`) by their sha256 and length, largest first, until it fits. Returns
 * undefined when even that is not enough (result_too_large).
 */
export interface ShrinkOutcome {
  envelope: ResultEnvelope;
  json: string;
}

interface Found {
  holder: Record<string, unknown>;
  path: string;
  value: string;
}

export function fitResult(envelope: ResultEnvelope, maxBytes: number): ShrinkOutcome | undefined {
  let json = JSON.stringify(envelope);
  if (Buffer.byteLength(json) <= maxBytes) return { envelope, json };
  const copy = structuredClone(envelope);
  const found: Found[] = [];
  collectBase64(copy.params, 'params', found);
  collectBase64(copy.response, 'response', found);
  found.sort((a, b) => b.value.length - a.value.length);
  const replaced = [...(copy.replaced ?? [])];
  for (const item of found) {
    const sha256 = createHash('sha256').update(item.value).digest('hex');
    delete item.holder.base64;
    item.holder.sha256 = sha256;
    item.holder.length = item.value.length;
    replaced.push({ path: item.path, sha256, length: item.value.length });
    copy.replaced = replaced;
    json = JSON.stringify(copy);
    if (Buffer.byteLength(json) <= maxBytes) return { envelope: copy, json };
  }
  return undefined;
}

function collectBase64(node: unknown, path: string, found: Found[]): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => {
      collectBase64(item, `${path}[${index}]`, found);
    });
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const record = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (key === 'base64' && typeof value === 'string')
      found.push({ holder: record, path: `${path}.base64`, value });
    else collectBase64(value, `${path}.${key}`, found);
  }
}
