import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Deps } from '../deps.js';
import { fail, invalid } from '../shared/errors.js';
import { publicBase } from '../shared/links.js';
import { pageOf, type Page, type PageRequest } from '../shared/paging.js';
import { findWorkspaceBySlug, type Workspace } from '../workspaces/workspaces.service.js';
import { mediaTag, workspaceTag } from '../cache/caches.js';
import { mediaStore, type FocalPoint, type MediaItem } from './media.model.js';
import { prepareUpload, receiveUpload, type PreparedFile } from './upload.js';

export type { MediaItem } from './media.model.js';

/** The folder of one file in the store: its original and every variant, removed together. */
export const mediaFolder = (workspaceId: string, mediaId: string) => `media/${workspaceId}/${mediaId}`;

/**
 * The version of what a file's URL shows: its bytes and its focal point (a cover crop moves with it).
 * A URL carrying it never changes meaning, so it is cached forever; a new focal point is a new URL.
 */
export function versionOf(media: Pick<MediaItem, 'sha256' | 'focalPoint'>): string {
  const focal = media.focalPoint ? `${media.focalPoint.x},${media.focalPoint.y}` : '';
  return createHash('sha256').update(`${media.sha256}|${focal}`).digest('hex').slice(0, 16);
}

/** The public path of a file: workspace slug, id, a readable name, and its version. */
export function mediaPath(workspace: Pick<Workspace, 'slug'>, media: MediaItem): string {
  return `/media/${encodeURIComponent(workspace.slug)}/${media.id}/${encodeURIComponent(media.name)}?v=${versionOf(media)}`;
}

export function toAdminMedia(deps: Deps, workspace: Workspace, media: MediaItem) {
  return {
    id: media.id,
    name: media.name,
    contentType: media.contentType as 'image/jpeg',
    size: media.size,
    width: media.width,
    height: media.height,
    alt: media.alt,
    focalPoint: media.focalPoint,
    url: mediaUrl(deps, workspace, media),
    createdAt: media.createdAt.toISOString(),
  };
}

/**
 * Takes one upload into the workspace's library: streamed to a temporary file under the size limit,
 * checked and cleaned (`upload.ts`), written to the store, and only then recorded. Whatever fails on
 * the way removes what it had written: the library never lists a file the store lacks.
 */
export async function uploadMedia(deps: Deps, workspace: Workspace, req: IncomingMessage): Promise<MediaItem> {
  const upload = await receiveUpload(req, deps.config.MEDIA_MAX_BYTES);
  try {
    const file = await prepareUpload(upload);
    const store = mediaStore(deps.db);
    const id = store.newId();
    const folder = mediaFolder(workspace.id, id);
    await deps.storage.put(`${folder}/original`, createReadStream(file.path), file);
    try {
      return await store.create({
        workspaceId: workspace.id,
        id,
        name: upload.name,
        contentType: file.contentType,
        size: file.size,
        width: file.width,
        height: file.height,
        sha256: file.sha256,
        storageKey: `${folder}/original`,
        createdAt: deps.clock.now(),
      });
    } catch (error) {
      await deps.storage.deleteAll(folder).catch(() => undefined);
      throw error;
    }
  } finally {
    await upload.discard();
  }
}

/** A checked and cleaned upload, handed to another domain that stores it (chat attachments). */
export type CleanFile = PreparedFile & { name: string };

/**
 * The library's intake for another domain's files: the upload is streamed under `maxBytes` (413 while it
 * arrives), its type read from its bytes (415 unless an image or a PDF), an image re-encoded without its
 * metadata (400 when corrupt); `use` stores it. The temporary files are gone when this settles, whatever
 * happened, so a refused or dropped upload leaves nothing behind.
 */
export async function withCleanUpload<T>(req: IncomingMessage, maxBytes: number, use: (file: CleanFile) => Promise<T>): Promise<T> {
  const upload = await receiveUpload(req, maxBytes);
  try {
    const file = await prepareUpload(upload);
    return await use({ ...file, name: upload.name });
  } finally {
    await upload.discard();
  }
}

export async function listMedia(deps: Deps, workspace: Workspace, search: string | undefined, request: PageRequest): Promise<Page<MediaItem>> {
  const { items, total } = await mediaStore(deps.db).page(workspace.id, search || undefined, request);
  return pageOf(request, items, total);
}

export async function getMedia(deps: Deps, workspace: Workspace, id: string): Promise<MediaItem> {
  const media = await mediaStore(deps.db).byId(workspace.id, id);
  if (!media) throw fail('media_not_found');
  return media;
}

export interface MediaPatch {
  name?: string;
  alt?: Record<string, string>;
  focalPoint?: FocalPoint | null;
}

/** Renames a file, sets its alternative texts (one per locale of the workspace) or its focal point. */
export async function updateMedia(deps: Deps, workspace: Workspace, id: string, patch: MediaPatch): Promise<MediaItem> {
  const unknownLocales = Object.keys(patch.alt ?? {}).filter((locale) => !workspace.locales.includes(locale));
  if (unknownLocales.length > 0) {
    throw invalid(unknownLocales.map((locale) => ({ path: `alt.${locale}`, message: `must be one of the workspace's locales (${workspace.locales.join(', ')})` })));
  }
  const updated = await mediaStore(deps.db).update(workspace.id, id, patch);
  if (!updated) throw fail('media_not_found');
  await deps.cache.invalidateMedia(workspace.id, id);
  return updated;
}

/**
 * Removes the record first (nothing links to a file being removed), then the file and its variants.
 * `mayDelete` (the posts' in-use rule) runs under the item's lock, so no publish that shows it lands between
 * its check and the removal (a publish takes the locks of the media it shows, `withMediaLocks`).
 */
export async function deleteMedia(deps: Deps, workspace: Workspace, id: string, mayDelete: () => Promise<void> = async () => undefined): Promise<void> {
  const store = mediaStore(deps.db);
  await store.exclusive(id, async () => {
    if (!(await store.byId(workspace.id, id))) throw fail('media_not_found');
    await mayDelete();
    const removed = await store.remove(workspace.id, id);
    if (!removed) throw fail('media_not_found');
  });
  await deps.cache.invalidateMedia(workspace.id, id);
  await deps.storage.deleteAll(mediaFolder(workspace.id, id));
}

/** The workspace's media items among `ids`, by id. */
export async function mediaByIds(deps: Deps, workspaceId: string, ids: string[]): Promise<Map<string, MediaItem>> {
  if (ids.length === 0) return new Map();
  const items = await mediaStore(deps.db).byIds(workspaceId, ids);
  return new Map(items.map((item) => [item.id, item]));
}

/** An image the library can resize (a PDF is not one). */
export const isImage = (media: MediaItem) => media.width !== null && media.height !== null;

/**
 * Runs `work` holding the locks of these media items (in id order, so two holders never wait on each other):
 * a publish that shows them, against a concurrent delete. Taken after a post's lock, never before it.
 */
export function withMediaLocks<T>(deps: Deps, ids: string[], work: () => Promise<T>): Promise<T> {
  const store = mediaStore(deps.db);
  const sorted = [...new Set(ids)].sort();
  const run = (index: number): Promise<T> => (index >= sorted.length ? work() : store.exclusive(sorted[index], () => run(index + 1)));
  return run(0);
}

/** The absolute URL of a file (its original), and of its variant `w` pixels wide. */
export function mediaUrl(deps: Deps, workspace: Pick<Workspace, 'slug'>, media: MediaItem, width?: number): string {
  return `${publicBase(deps.config)}${mediaPath(workspace, media)}${width === undefined ? '' : `&w=${width}`}`;
}

/** A file as delivery serves it: its record and its version (`versionOf`, worked out once per lookup). */
export interface PublicMedia {
  media: MediaItem;
  version: string;
}

const publicMediaKey = (workspaceSlug: string, id: string) => `media:${workspaceSlug}/${id}`;

/**
 * A file of a workspace known by its public slug, for delivery; null when either is unknown. Remembered
 * on each node for a few seconds (two engine reads per image request otherwise) and dropped on every
 * node when the file changes or goes, or the workspace's settings change.
 */
export async function publicMedia(deps: Deps, workspaceSlug: string, id: string): Promise<PublicMedia | null> {
  const found = await deps.cache.memo.remember(
    publicMediaKey(workspaceSlug, id),
    (value) => [workspaceTag(value.workspaceId), mediaTag(value.media.id)],
    async () => {
      const workspace = await findWorkspaceBySlug(deps, workspaceSlug);
      const media = workspace ? await mediaStore(deps.db).byId(workspace.id, id) : null;
      return workspace && media ? { workspaceId: workspace.id, media, version: versionOf(media) } : null;
    },
  );
  return found;
}

/** The same file as far as this node remembers it now (undefined when it would have to be read: not yet, or changed since). */
export function rememberedPublicMedia(deps: Deps, workspaceSlug: string, id: string): PublicMedia | undefined {
  return deps.cache.memo.peek<PublicMedia>(publicMediaKey(workspaceSlug, id));
}
