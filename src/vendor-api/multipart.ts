import { FormData } from 'undici';

/** Media type from the first bytes, for a file whose caller gave no contentType. */
export function sniffContentType(bytes: Uint8Array): string {
  const startsWith = (...signature: number[]) => signature.every((byte, i) => bytes[i] === byte);
  if (startsWith(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (startsWith(0x89, 0x50, 0x4e, 0x47)) return 'image/png';
  if (startsWith(0x25, 0x50, 0x44, 0x46)) return 'application/pdf';
  if (startsWith(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (startsWith(0x52, 0x49, 0x46, 0x46)) return 'image/webp';
  return 'application/octet-stream';
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'application/pdf': 'pdf',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

export interface FilePart {
  /** Part name; the vendor echoes it as `fieldname` (vendor-api.md, "File inputs"). */
  name: string;
  bytes: Uint8Array;
  filename?: string | undefined;
  contentType?: string | undefined;
}

/** A multipart body with exactly one file part: classify takes one file per call ("Limits"). */
export function singleFileForm(part: FilePart): FormData {
  const contentType = part.contentType ?? sniffContentType(part.bytes);
  const filename = part.filename ?? `${part.name}.${EXTENSIONS[contentType] ?? 'bin'}`;
  const form = new FormData();
  form.append(part.name, new Blob([part.bytes], { type: contentType }), filename);
  return form;
}
