import { ApiError, uploadWithProgress, type FieldIssue, type Page } from './api.js';
import { call, logout, token, ws } from './store.js';

/** A media library file as the admin API answers it (`Media` in the OpenAPI document). */
export interface Media {
  id: string;
  name: string;
  contentType: string;
  size: number;
  width: number | null;
  height: number | null;
  alt: Record<string, string>;
  focalPoint: { x: number; y: number } | null;
  url: string;
  createdAt: string;
}

/** What the library takes (the server reads the bytes and decides; this only narrows the picker). */
export const IMAGE_TYPES = 'image/jpeg,image/png,image/webp,image/avif,image/gif';
export const MEDIA_TYPES = `${IMAGE_TYPES},application/pdf`;

export const isImage = (media: Media) => media.width !== null;
export const altOf = (media: Media, locale: string) => media.alt[locale] ?? '';

/**
 * A variant `width` pixels wide (one of the server's sizes: 160, 320, ...; never enlarged), from this origin:
 * the console is served by the server it edits, whatever its `PUBLIC_URL` says.
 */
export const variant = (media: Media, width: 160 | 320 | 640) => {
  const url = new URL(media.url, location.href);
  url.searchParams.set('w', String(width));
  return `${url.pathname}${url.search}`;
};
export const thumb = (media: Media) => variant(media, 160);

/** A published post that shows a file, and how (a refused delete names them): with its title when it is still there. */
export interface MediaUse {
  postId: string;
  shownAs: ShownAs[];
  post: { title: string; locale: string } | null;
}
export type ShownAs = 'image' | 'body';

/** The uses a refused delete names (issues `posts.<id>.image` and `posts.<id>.body`), each post read for its title. */
export async function usesOf(issues: FieldIssue[]): Promise<MediaUse[]> {
  const byPost = new Map<string, ShownAs[]>();
  for (const { path } of issues) {
    const [scope, postId, shownAs] = path.split('.');
    if (scope === 'posts' && postId && (shownAs === 'image' || shownAs === 'body')) byPost.set(postId, [...(byPost.get(postId) ?? []), shownAs]);
  }
  return Promise.all(
    [...byPost].map(async ([postId, shownAs]) => ({
      postId,
      shownAs,
      post: await call<{ title: string; locale: string }>('GET', `${ws()}/posts/${encodeURIComponent(postId)}`).catch(() => null),
    })),
  );
}

const mediaPath = (id: string) => `${ws()}/media/${encodeURIComponent(id)}`;

/** One page of the library, newest first; `q` keeps names containing it. */
export const listMedia = (q: string, page = 1, limit = 50) =>
  call<Page<Media> & { pageInfo: { hasNext: boolean } }>('GET', `${ws()}/media?limit=${limit}&page=${page}${q ? `&q=${encodeURIComponent(q)}` : ''}`);
export const getMedia = (id: string) => call<Media>('GET', mediaPath(id));
export const updateMedia = (id: string, patch: { name?: string; alt?: Record<string, string>; focalPoint?: Media['focalPoint'] }) => call<Media>('PATCH', mediaPath(id), patch);
export const deleteMedia = (id: string) => call<void>('DELETE', mediaPath(id));
/** Uploads one file; `onProgress` hears the share sent (0..1) as it goes. */
export const uploadMedia = (file: File, onProgress?: (share: number) => void) =>
  uploadWithProgress<Media>(token.value, `${ws()}/media`, file, onProgress).catch((err: unknown) => {
    // As every other call: an expired session logs out.
    if (err instanceof ApiError && err.status === 401) logout();
    throw err;
  });

/** A size in the reader's words: bytes, KB or MB. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
