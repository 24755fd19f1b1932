import { batch, computed, signal } from '@preact/signals';
import { ApiError, type FieldIssue } from './api.js';
import { call, error, logout, token, viewLoaders, workspaceId, ws } from './store.js';
import { myRole } from './team.js';

/** The admin API's scheduled change of a post (`ScheduledPostChange` in the OpenAPI document). */
export interface ScheduledChange {
  id: string;
  postId: string;
  action: 'publish' | 'unpublish';
  at: string;
  createdAt: string;
}

export type PostState = 'DRAFT' | 'PUBLISHED' | 'UNPUBLISHED';

/** The admin API's post (`AdminPost`): the draft's fields at the top level. */
export interface AdminPost {
  id: string;
  type: string;
  locale: string;
  translationGroupId: string;
  state: PostState;
  slug: string;
  canonicalSlug: string;
  title: string;
  metaDescription: string;
  tags: string[];
  categoryId: string | null;
  /** The post's image from the media library; null when none. */
  imageMediaId: string | null;
  contentMarkdown: string | null;
  contentHtml: string | null;
  publishedAt: string | null;
  hasUnpublishedChanges: boolean | null;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export type ListedPost = AdminPost & { scheduled: ScheduledChange[] };

interface PostPage {
  items: ListedPost[];
  pageInfo: { page: number; hasNext: boolean };
}

export type StateFilter = 'all' | PostState | 'SCHEDULED';

/** The list's page size: what a screen shows without the server reading much. */
const PAGE = 25;

/** Editors, owners and operators write content; agents neither see the section nor load it. */
export const writesContent = computed(() => myRole.value !== 'agent');

export const stateFilter = signal<StateFilter>('all');
export const typeFilter = signal('');
export const localeFilter = signal('');
export const query = signal('');
export const page = signal(1);
export const list = signal<ListedPost[]>([]);
export const hasNext = signal(false);
export const loaded = signal(false);
/** The workspace's locales (its default first) and post types: the filters' and the editor's choices. */
export const locales = signal<string[]>([]);
export const types = signal<{ slug: string; name: string }[]>([]);

let listRequest = 0;

export async function loadPosts(): Promise<void> {
  if (!workspaceId.value || !writesContent.value) return;
  const mine = ++listRequest;
  // A summary: no bodies, no count (the list shows neither), whatever the number of posts.
  const params = new URLSearchParams({ view: 'summary', limit: String(PAGE), page: String(page.value) });
  if (stateFilter.value !== 'all') params.set('state', stateFilter.value);
  if (typeFilter.value) params.set('type', typeFilter.value);
  if (localeFilter.value) params.set('locale', localeFilter.value);
  if (query.value.trim()) params.set('q', query.value.trim());
  try {
    const res = await call<PostPage>('GET', `${ws()}/posts?${params}`);
    if (mine !== listRequest) return;
    batch(() => {
      list.value = res.items;
      hasNext.value = res.pageInfo.hasNext;
      loaded.value = true;
    });
  } catch (err) {
    report(err);
  }
}

viewLoaders.posts = loadPosts;

/** The filters' choices; after the list (they are not needed for its first paint). */
export async function loadChoices(): Promise<void> {
  if (!workspaceId.value) return;
  try {
    const [workspace, postTypes] = await Promise.all([
      call<{ locales: string[]; defaultLocale: string }>('GET', ws()),
      call<{ items: { slug: string; name: string }[] }>('GET', `${ws()}/post-types`),
    ]);
    batch(() => {
      locales.value = [workspace.defaultLocale, ...workspace.locales.filter((locale) => locale !== workspace.defaultLocale)];
      types.value = postTypes.items;
    });
  } catch (err) {
    report(err);
  }
}

/** Another filter: back to the first page. */
export function refilter(): void {
  page.value = 1;
  void loadPosts();
}

export function turnPage(to: number): void {
  page.value = to;
  void loadPosts();
}

export function resetPosts(): void {
  batch(() => {
    list.value = [];
    loaded.value = false;
    page.value = 1;
  });
}

function report(err: unknown): void {
  error.value = err instanceof Error ? err.message : String(err);
}

/* ---- the editor's calls: like `call`, plus the post's version as `If-Match` ---- */

export const postPath = (id: string) => `${ws()}/posts/${encodeURIComponent(id)}`;

/**
 * A write of a post that names the version it was made on (`If-Match`): a 412 means someone saved meanwhile.
 * `ApiError.status` 0 is no answer at all (offline).
 */
export async function versionedCall<T>(method: string, path: string, body: unknown, version: number): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token.value ?? ''}`, 'If-Match': `"${version}"` },
      body: JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'offline');
  }
  const text = await res.text();
  const data = text ? (JSON.parse(text) as { message?: string; issues?: FieldIssue[] }) : null;
  if (res.status === 401) logout();
  if (!res.ok) throw new ApiError(res.status, data?.message ?? `HTTP ${res.status}`, data?.issues ?? []);
  return data as T;
}

/** The post's locale variants (itself included), in the workspace's locale order. */
export async function translationsOf(post: AdminPost): Promise<AdminPost[]> {
  const res = await call<PostPage>('GET', `${ws()}/posts?view=summary&translationGroupId=${encodeURIComponent(post.translationGroupId)}&limit=100`);
  const order = locales.value;
  return res.items.sort((a, b) => order.indexOf(a.locale) - order.indexOf(b.locale));
}

/** Deletes the post (every state): the site stops showing it at once. */
export const deletePost = (id: string) => call('DELETE', postPath(id));

/** Sets the draft's category and tags over `version` (`If-Match`): published with the next publish. */
export const classifyPost = (id: string, version: number, fields: { categoryId: string | null; tags: string[] }) => versionedCall<AdminPost>('PATCH', postPath(id), fields, version);

export const setPostImage = (id: string, version: number, imageMediaId: string | null) => versionedCall<AdminPost>('PATCH', postPath(id), { imageMediaId }, version);
