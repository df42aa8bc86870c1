import type { FastifyRequest } from 'fastify';
import { badRequest } from '../envelope.js';

export interface UploadedFile {
  fieldname: string;
  name: string;
  content: Buffer;
  mimetype: string;
  encoding: string;
}

/** Every file part of a multipart body, read into memory (the parts are small images). */
export async function readMultipartFiles(request: FastifyRequest): Promise<UploadedFile[]> {
  const files: UploadedFile[] = [];
  for await (const part of request.parts()) {
    if (part.type !== 'file') continue;
    files.push({
      fieldname: part.fieldname,
      name: part.filename,
      content: await part.toBuffer(),
      mimetype: part.mimetype,
      encoding: part.encoding,
    });
  }
  return files;
}

export function isJpeg(content: Buffer): boolean {
  return content.length >= 3 && content[0] === 0xff && content[1] === 0xd8 && content[2] === 0xff;
}

export function sniffMimetype(content: Buffer): string {
  if (isJpeg(content)) return 'image/jpeg';
  if (content.subarray(0, 4).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47]))) return 'image/png';
  if (content.subarray(0, 4).toString('latin1') === '%PDF') return 'application/pdf';
  return 'application/octet-stream';
}

function mimetypeOfName(name: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  if (extension === 'jpg' || extension === 'jpeg') return 'image/jpeg';
  if (extension === 'png') return 'image/png';
  if (extension === 'pdf') return 'application/pdf';
  return 'application/octet-stream';
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function onlyMember(group: unknown, way: string): [string, unknown] {
  if (typeof group !== 'object' || group === null || Array.isArray(group)) {
    throw badRequest(`'${way}' must be an object of name: value`);
  }
  const members = Object.entries(group);
  if (members.length !== 1)
    throw badRequest(`exactly one file per call; '${way}' has ${String(members.length)}`);
  const [member] = members;
  if (member === undefined) throw badRequest(`exactly one file per call`);
  return member;
}

/**
 * The JSON ways of passing a file: `{ base64: { name: text } }` or `{ urls: { name: url } }`.
 * The sandbox never downloads a URL: the URL text itself stands for the file content, which
 * keeps answers deterministic and tests offline.
 */
export function readJsonFile(body: unknown): UploadedFile {
  if (typeof body !== 'object' || body === null) {
    throw badRequest('send one file as multipart/form-data, or JSON with base64 or urls');
  }
  const { base64, urls } = body as { base64?: unknown; urls?: unknown };
  if ((base64 === undefined) === (urls === undefined)) {
    throw badRequest("send exactly one of 'base64' or 'urls'");
  }
  if (base64 !== undefined) {
    const [name, value] = onlyMember(base64, 'base64');
    const text =
      typeof value === 'string' ? value.replace(/^data:[^,]*;base64,/, '').replace(/\s+/g, '') : '';
    if (text === '' || !BASE64.test(text)) throw badRequest(`'base64.${name}' is not base64 text`);
    const content = Buffer.from(text, 'base64');
    return { fieldname: name, name, content, mimetype: sniffMimetype(content), encoding: 'base64' };
  }
  const [name, value] = onlyMember(urls, 'urls');
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : undefined;
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw badRequest(`'urls.${name}' is not an http(s) URL`);
  }
  const fileName = url.pathname.split('/').pop() ?? '';
  return {
    fieldname: name,
    name: fileName === '' ? name : fileName,
    content: Buffer.from(String(value)),
    mimetype: mimetypeOfName(url.pathname),
    encoding: '7bit',
  };
}
