import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IncomingMessage } from 'node:http';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import { fail } from '../shared/errors.js';

/** What the library stores: images re-encoded (metadata stripped), PDFs as sent. SVG is not among them (script). */
export const ALLOWED_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif', 'image/gif', 'application/pdf'] as const;
export type AllowedType = (typeof ALLOWED_TYPES)[number];

/**
 * Images with more pixels than this are refused before they are decoded: a small file may claim
 * 50,000 x 50,000 pixels (10 GB decoded). 40 megapixels covers every camera a team photographs with.
 */
export const MAX_INPUT_PIXELS = 40_000_000;

/** One upload while it is processed: its files live in a private temporary folder, removed by `discard`. */
export interface ReceivedUpload {
  dir: string;
  path: string;
  /** The file name the client gave (its last path segment), or `upload`. */
  name: string;
  discard(): Promise<void>;
}

export interface PreparedFile {
  path: string;
  contentType: AllowedType;
  size: number;
  width: number | null;
  height: number | null;
  sha256: string;
}

const fileNameOf = (raw: string | undefined) => {
  const base = [...((raw ?? '').split(/[\\/]/).pop() ?? '')].filter((char) => char.charCodeAt(0) >= 0x20 && char.charCodeAt(0) !== 0x7f).join('').trim();
  return base.slice(0, 200) || 'upload';
};

/**
 * Streams the multipart part named `file` into a temporary file, counting its bytes: past `maxBytes`
 * the upload is refused at once (413) while the rest of the request is read and thrown away, and
 * nothing is kept. A dropped connection or a malformed body also leaves nothing behind.
 */
export async function receiveUpload(req: IncomingMessage, maxBytes: number): Promise<ReceivedUpload> {
  if (!/^multipart\/form-data\b/i.test(req.headers['content-type'] ?? '')) throw fail('media_upload_missing');
  const dir = await mkdtemp(join(tmpdir(), 'hearth-upload-'));
  const discard = () => rm(dir, { recursive: true, force: true });
  const path = join(dir, 'received');
  try {
    const name = await new Promise<string>((resolve, reject) => {
      let parser: busboy.Busboy;
      try {
        parser = busboy({ headers: req.headers, // busboy reports the limit once a file reaches it: one byte more, so a file of exactly `maxBytes` passes.
        limits: { fileSize: maxBytes + 1, files: 1, fields: 20, parts: 21 } });
      } catch {
        reject(fail('media_upload_missing'));
        return;
      }
      let written: Promise<string> | undefined;
      parser.on('file', (field, stream, info) => {
        if (field !== 'file') {
          stream.resume();
          return;
        }
        stream.on('limit', () => reject(fail('media_too_large', `The file is larger than the upload limit of ${maxBytes} bytes.`)));
        written = pipeline(stream, createWriteStream(path)).then(() => fileNameOf(info.filename));
        written.catch(reject);
      });
      parser.on('error', () => reject(fail('malformed_body')));
      parser.on('close', () => (written ? written.then(resolve, reject) : reject(fail('media_upload_missing'))));
      req.on('aborted', () => reject(fail('malformed_body')));
      req.pipe(parser);
    });
    return { dir, path, name, discard };
  } catch (error) {
    await discard();
    throw error;
  }
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/**
 * sharp and file-type, loaded on first use: together they take over a second to load, which every start
 * (and every test process) would otherwise pay before serving anything.
 */
export async function imaging() {
  const [{ default: sharp }, { fileTypeFromFile }] = await Promise.all([import('sharp'), import('file-type')]);
  // libvips keeps the results of recent operations (up to 50 MB) in case the same one comes again, which it
  // never does here (each upload and each variant is made once, then stored), and gives every image as many
  // threads as there are cores while libuv already runs several images at once: both only raise the memory
  // a burst of uploads takes. Process-wide settings, as cheap to set again as to check.
  sharp.cache(false);
  sharp.concurrency(1);
  return { sharp, fileTypeFromFile };
}

const isAllowed = (mime: string | undefined): mime is AllowedType => (ALLOWED_TYPES as readonly string[]).includes(mime ?? '');

/**
 * Decides what the file is from its bytes (never its name or the client's Content-Type) and makes the
 * copy that is stored: an image is decoded and re-encoded in its own format, turned upright by its EXIF
 * orientation and stripped of every metadata block (EXIF, GPS, XMP, comments), which also drops whatever
 * rode along after the image data (a polyglot's second payload). A PDF is kept as sent and is only ever
 * served as a download.
 */
export async function prepareUpload(upload: ReceivedUpload): Promise<PreparedFile> {
  const { fileTypeFromFile, sharp } = await imaging();
  const sniffed = await fileTypeFromFile(upload.path);
  const contentType = sniffed?.mime;
  if (!isAllowed(contentType)) throw fail('media_type_not_allowed');
  if (contentType === 'application/pdf') {
    const { size } = await stat(upload.path);
    return { path: upload.path, contentType, size, width: null, height: null, sha256: await sha256Of(upload.path) };
  }
  const output = join(upload.dir, 'stored');
  const animated = contentType === 'image/gif' || contentType === 'image/webp';
  try {
    const info = await sharp(upload.path, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'warning', animated })
      .autoOrient()
      .toFormat(FORMAT_OF[contentType])
      .toFile(output);
    return { path: output, contentType, size: info.size, width: info.width, height: info.pageHeight ?? info.height, sha256: await sha256Of(output) };
  } catch (error) {
    if (error instanceof Error && /pixel limit/i.test(error.message)) throw fail('image_too_large', `The image has more than ${MAX_INPUT_PIXELS} pixels.`);
    throw fail('media_corrupt');
  }
}

const FORMAT_OF = { 'image/jpeg': 'jpeg', 'image/png': 'png', 'image/webp': 'webp', 'image/avif': 'avif', 'image/gif': 'gif' } as const;
