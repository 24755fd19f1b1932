import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Request, Response } from 'express';
import { etagNamedBy } from './conditional-get.js';

/**
 * Serves a folder of public/ written by scripts/build-widget.mjs: files under content-hashed names
 * (`widget.<16 hex>.js`), each with a brotli `.br` and a gzip `.gz` variant compressed at build time,
 * and a `manifest.json` mapping stable names (`widget.js`) to hashed ones. Nothing is compressed per
 * request. A hashed name never changes content, so it is cached for a year (`immutable`); a stable name
 * (what other sites embed, or what HTML pages name) is cached briefly and revalidated by ETag.
 */

// src/http and dist/http both sit two levels below the repository root.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PUBLIC_DIR = join(ROOT, 'public');

const HASHED = /^[a-z0-9-]+\.[0-9a-f]{16}\.(js|css)$/;
const CONTENT_TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Stable names and the HTML pages that name hashed files: five minutes, then revalidated. */
export const SHORT_CACHE = 'public, max-age=300';

type Encoding = 'br' | 'gzip' | 'identity';
const SUFFIX: Record<Encoding, string> = { br: '.br', gzip: '.gz', identity: '' };

/**
 * The encoding to send: brotli when accepted, then gzip, else identity. A coding is accepted when named
 * (or covered by `*`) with a q above 0; the server's order decides, as both variants are prebuilt.
 */
export function negotiateEncoding(acceptEncoding: string | undefined): Encoding {
  const weights = new Map<string, number>();
  for (const part of (acceptEncoding ?? '').split(',')) {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (!coding) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    weights.set(coding, q ? Number(q.slice(2)) || 0 : 1);
  }
  const accepted = (coding: string) => (weights.get(coding) ?? weights.get('*') ?? 0) > 0;
  if (accepted('br')) return 'br';
  if (accepted('gzip')) return 'gzip';
  return 'identity';
}

export interface AssetFolder {
  /** The hashed file a stable name currently maps to, or null when the folder is not built (and cannot be). */
  current(name: string): Promise<string | null>;
  /** A hashed file's text (to inline it in a page), or null when there is none. */
  text(file: string): Promise<string | null>;
  /** Sends a hashed file of the folder with the variant the request accepts; false when there is none. */
  send(req: Request, res: Response, file: string, cacheControl: string): Promise<boolean>;
}

/**
 * One folder of built assets. `build` (outside production) builds it when its manifest is missing, so
 * `npm run dev` needs no extra step; a manifest rewritten by a later build is read again.
 */
export function assetFolder(name: string, options: { build?: () => Promise<unknown> } = {}): AssetFolder {
  const dir = join(PUBLIC_DIR, name);
  const manifestPath = join(dir, 'manifest.json');
  let manifest: { mtimeMs: number; files: Record<string, string> } | undefined;
  let building: Promise<unknown> | undefined;
  // Hashed files never change, so their bytes are kept once read (a few MB at most).
  const variants = new Map<string, Promise<Buffer | null>>();

  async function readManifest(): Promise<Record<string, string> | null> {
    if (!existsSync(manifestPath) && options.build) {
      building ??= options.build().finally(() => (building = undefined));
      await building;
    }
    const info = await stat(manifestPath).catch(() => null);
    if (!info) return null;
    if (manifest?.mtimeMs !== info.mtimeMs) manifest = { mtimeMs: info.mtimeMs, files: JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, string> };
    return manifest.files;
  }

  function variant(file: string, encoding: Encoding): Promise<Buffer | null> {
    const key = file + SUFFIX[encoding];
    let bytes = variants.get(key);
    if (!bytes) {
      bytes = readFile(join(dir, key)).catch(() => null);
      variants.set(key, bytes);
      void bytes.then((found) => found ?? variants.delete(key));
    }
    return bytes;
  }

  return {
    async current(stable) {
      return (await readManifest())?.[stable] ?? null;
    },
    async text(file) {
      if (!HASHED.test(file)) return null;
      return (await variant(file, 'identity'))?.toString('utf8') ?? null;
    },
    async send(req, res, file, cacheControl) {
      if (!HASHED.test(file)) return false;
      const encoding = negotiateEncoding(req.get('accept-encoding'));
      const bytes = await variant(file, encoding);
      if (!bytes) return false;
      const hash = file.split('.')[1];
      const etag = `"${hash}-${encoding}"`;
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader('Cache-Control', cacheControl);
      res.setHeader('ETag', etag);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if (etagNamedBy(req.get('if-none-match'), etag)) {
        res.status(304).end();
        return true;
      }
      res.setHeader('Content-Type', CONTENT_TYPES[extname(file)]);
      if (encoding !== 'identity') res.setHeader('Content-Encoding', encoding);
      res.setHeader('Content-Length', bytes.length);
      res.status(200).end(bytes);
      return true;
    },
  };
}

/** The builder of scripts/build-widget.mjs named `exportName`, imported only when first needed. */
export function buildScript(exportName: 'buildWidget' | 'buildConsole' | 'buildDocs'): () => Promise<unknown> {
  return async () => {
    const script = pathToFileURL(join(ROOT, 'scripts', 'build-widget.mjs')).href;
    const builders = (await import(script)) as Record<typeof exportName, () => Promise<unknown>>;
    const build = builders[exportName];
    return build();
  };
}
