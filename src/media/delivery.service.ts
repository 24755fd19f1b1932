import { Readable } from 'node:stream';
import type { Deps, MediaVariant } from '../deps.js';
import type { StoredObject } from '../db/object-storage.js';
import { fail } from '../shared/errors.js';
import { sha256Hex } from '../shared/crypto.js';
import type { FocalPoint, MediaItem } from './media.model.js';
import { isImage, publicMedia, rememberedPublicMedia } from './media.service.js';
import { imaging, MAX_INPUT_PIXELS } from './upload.js';
import type { VARIANT_FITS, VARIANT_FORMATS } from './media.schemas.js';

export interface VariantSpec {
  w?: number;
  h?: number;
  fit?: (typeof VARIANT_FITS)[number];
  fm?: (typeof VARIANT_FORMATS)[number];
}

/** A resized image as delivered: its file, the file's version, the variant's bytes and its tag (the ETag's content). */
export interface VariantDelivery {
  kind: 'variant';
  media: MediaItem;
  version: string;
  variant: MediaVariant;
  tag: string;
}

export type Delivery = { kind: 'original'; media: MediaItem; version: string; object: StoredObject } | VariantDelivery;

const CONTENT_TYPE_OF = { webp: 'image/webp', avif: 'image/avif', jpeg: 'image/jpeg' } as const;

/** Without `fm`, a variant keeps the original's format where it is one of the three, else WebP. */
function formatFor(media: MediaItem, fm: VariantSpec['fm']): NonNullable<VariantSpec['fm']> {
  if (fm) return fm;
  if (media.contentType === 'image/jpeg') return 'jpeg';
  if (media.contentType === 'image/avif') return 'avif';
  return 'webp';
}

const wantsVariant = (spec: VariantSpec) => spec.w !== undefined || spec.h !== undefined || spec.fm !== undefined;

/** The variant `spec` of an image of version `version`: its format and fit, its tag, and its key in memory and the store. */
function variantNamed(media: MediaItem, version: string, spec: VariantSpec) {
  const fm = formatFor(media, spec.fm);
  const fit = spec.fit ?? 'inside';
  const tag = `${version}-${spec.w ?? 'auto'}x${spec.h ?? 'auto'}-${fit}.${fm}`;
  return { fm, fit, tag, key: `${folderOf(media)}/variants/${tag}` };
}

/**
 * What `GET /media/:workspace/:id/:name` answers: the stored file, or a resized image. A variant is taken
 * from this node's memory, else from the store, else rendered from the original and kept in both; its
 * key names the file's version and the transform, so a kept variant is never stale.
 */
export async function deliverMedia(deps: Deps, workspaceSlug: string, id: string, spec: VariantSpec): Promise<Delivery> {
  const found = await publicMedia(deps, workspaceSlug, id);
  if (!found) throw fail('media_not_found');
  const { media, version } = found;
  if (!wantsVariant(spec)) {
    const object = await deps.storage.get(media.storageKey);
    if (!object) throw fail('media_not_found');
    return { kind: 'original', media, version, object };
  }
  if (!isImage(media)) throw fail('not_an_image');
  const { fm, fit, tag, key } = variantNamed(media, version, spec);
  const remembered = deps.mediaVariants.get(key);
  if (remembered) return { kind: 'variant', media, version, variant: remembered, tag };
  // Concurrent misses of one variant on this node wait for the first one's render instead of each rendering.
  const variant = await deps.serial.run(`media-variant:${key}`, async () => {
    const meanwhile = deps.mediaVariants.get(key);
    if (meanwhile) return meanwhile;
    const stored = await deps.storage.get(key);
    const made = stored
      ? { bytes: await bytesOf(stored.body), contentType: CONTENT_TYPE_OF[fm] }
      : await renderAndStore(deps, media, key, { ...spec, fit, fm });
    deps.mediaVariants.set(key, made, made.bytes.length);
    return made;
  });
  return { kind: 'variant', media, version, variant, tag };
}

/**
 * The variant `spec` of a file as this node holds it now, without reading or making anything: its record
 * remembered (so a change or delete of the file, which drops that on every node, ends it at once) and the
 * variant in memory. Undefined otherwise, `deliverMedia` then decides (a miss, an original, a PDF).
 */
export function rememberedVariant(deps: Deps, workspaceSlug: string, id: string, spec: VariantSpec): VariantDelivery | undefined {
  const found = wantsVariant(spec) ? rememberedPublicMedia(deps, workspaceSlug, id) : undefined;
  if (!found || !isImage(found.media)) return undefined;
  const { tag, key } = variantNamed(found.media, found.version, spec);
  const variant = deps.mediaVariants.get(key);
  return variant && { kind: 'variant', media: found.media, version: found.version, variant, tag };
}

/** The store folder of a file: where its original lies (`media/<workspace>/<id>`). */
const folderOf = (media: MediaItem) => media.storageKey.slice(0, media.storageKey.lastIndexOf('/'));

async function bytesOf(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A `cover` crop of `w` x `h` that keeps the focal point as near the middle as the image allows: the
 * image is scaled to cover the box, then the box is cut around the focal point (clamped to the edges).
 */
function coverCrop(source: { width: number; height: number }, box: { w: number; h: number }, focal: FocalPoint) {
  const scale = Math.max(box.w / source.width, box.h / source.height);
  const width = Math.max(box.w, Math.round(source.width * scale));
  const height = Math.max(box.h, Math.round(source.height * scale));
  const clamp = (value: number, max: number) => Math.min(Math.max(0, value), max);
  const left = clamp(Math.round(focal.x * width - box.w / 2), width - box.w);
  const top = clamp(Math.round(focal.y * height - box.h / 2), height - box.h);
  return { width, height, left, top };
}

async function renderAndStore(deps: Deps, media: MediaItem, key: string, spec: Required<Pick<VariantSpec, 'fit' | 'fm'>> & VariantSpec): Promise<MediaVariant> {
  const original = await deps.storage.get(media.storageKey);
  if (!original) throw fail('media_not_found');
  const { sharp } = await imaging();
  let image = sharp({ limitInputPixels: MAX_INPUT_PIXELS });
  if (spec.fit === 'cover' && spec.w !== undefined && spec.h !== undefined && media.width && media.height) {
    const crop = coverCrop({ width: media.width, height: media.height }, { w: spec.w, h: spec.h }, media.focalPoint ?? { x: 0.5, y: 0.5 });
    image = image.resize(crop.width, crop.height, { fit: 'fill' }).extract({ left: crop.left, top: crop.top, width: spec.w, height: spec.h });
  } else {
    // Never enlarged: a 300 px image asked at 1920 stays 300 px (the browser scales it, no bytes wasted).
    const fit = spec.fit === 'cover' ? 'inside' : spec.fit;
    image = image.resize(spec.w, spec.h, { fit, withoutEnlargement: true, background: { r: 255, g: 255, b: 255, alpha: spec.fm === 'jpeg' ? 1 : 0 } });
  }
  original.body.pipe(image);
  const bytes = await image.toFormat(spec.fm, spec.fm === 'avif' ? { effort: 2 } : {}).toBuffer();
  const variant = { bytes, contentType: CONTENT_TYPE_OF[spec.fm] };
  // The store keeps it for every node and every restart; failing to keep it costs only a later render.
  await deps.storage.put(key, Readable.from([bytes]), { contentType: variant.contentType, size: bytes.length, sha256: sha256Hex(bytes) }).catch((error: unknown) => deps.logger.warn({ err: error, key }, 'media variant not stored'));
  return variant;
}
