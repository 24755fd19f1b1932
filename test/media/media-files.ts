import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { request, type ApiResponse } from '../support/harness.js';

/** Files the media tests upload, made here from scratch (no binary fixtures in the repository). */

export const photo = (width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 120, b: 40 } } });

/** A JPEG that says who took it and where (EXIF copyright, GPS position) and must be turned upright (orientation 6). */
export async function jpegWithGpsAndOrientation(): Promise<Buffer> {
  return photo(40, 20)
    .jpeg()
    .withMetadata({ orientation: 6 })
    .withExif({ IFD0: { Copyright: 'secret-photographer' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
    .toBuffer();
}

export const png = (width = 64, height = 48) => photo(width, height).png().toBuffer();

/** A PDF of exactly `size` bytes (padded with a comment; the type is read from `%PDF-`). */
export function pdfOfSize(size: number): Buffer {
  const head = '%PDF-1.4\n%';
  const tail = '\n%%EOF\n';
  return Buffer.from(head + 'a'.repeat(size - head.length - tail.length) + tail);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A few hundred bytes that claim `width` x `height` pixels (50,000 x 50,000: 10 GB once decoded). */
export function pixelBombPng(width = 50_000, height = 50_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = deflateSync(Buffer.alloc(1 + width * 3)); // one row of zeroes: compresses to almost nothing
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', rows), pngChunk('IEND', Buffer.alloc(0))]);
}

export const svgWithScript = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script><rect width="10" height="10"/></svg>');
export const htmlPage = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');

/** Uploads `bytes` as the `file` part of a multipart form, as a browser's FormData would. */
export function upload(url: string, wid: string, token: string, bytes: Buffer, name: string, type = 'application/octet-stream'): Promise<ApiResponse> {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type }), name);
  return fetch(`${url}/admin/workspaces/${wid}/media`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form }).then(async (response) => {
    const text = await response.text();
    return { status: response.status, headers: response.headers, text, body: text ? JSON.parse(text) : undefined };
  });
}

export const list = (url: string, wid: string, token: string, query = '') => request(url, `/admin/workspaces/${wid}/media${query}`, { token });

export async function fetchBytes(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

/** The library's absolute `url` (made with PUBLIC_URL) pointed at the test node instead. */
export const onNode = (nodeUrl: string, url: string) => {
  const parsed = new URL(url);
  return `${nodeUrl}${parsed.pathname}${parsed.search}`;
};
