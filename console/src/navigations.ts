import { batch, signal } from '@preact/signals';
import { ApiError, type FieldIssue } from './api.js';
import { call, error, workspaceId, ws } from './store.js';
import { t } from './strings.js';
import { versionedCall } from './posts.js';
import { toTree, toItems, type NavigationItem, type TreeNode } from './navigation-tree.js';

export * from './navigation-tree.js';

export interface Navigation {
  id: string;
  key: string;
  name: string;
  items: NavigationItem[];
  version: number;
  createdAt: string;
  updatedAt: string;
}

const navigationPath = (id: string) => `${ws()}/navigations/${encodeURIComponent(id)}`;

/* ---- the list ---- */

export const navigations = signal<Navigation[]>([]);
export const navigationsLoaded = signal(false);

export async function loadNavigations(): Promise<void> {
  try {
    navigations.value = (await call<{ items: Navigation[] }>('GET', `${ws()}/navigations`)).items;
    navigationsLoaded.value = true;
  } catch (err) {
    error.value = err instanceof Error ? err.message : String(err);
  }
}

export async function createNavigation(fields: { key: string; name: string }): Promise<Navigation> {
  try {
    return await call<Navigation>('POST', `${ws()}/navigations`, fields);
  } catch (err) {
    // A taken key belongs beside the key field.
    if (err instanceof ApiError && err.status === 409) throw new ApiError(409, err.message, [{ path: 'key', message: err.message }]);
    throw err;
  }
}

/** Renames or re-keys a navigation over `version` (`If-Match`); only what changed is sent. */
export async function renameNavigation(navigation: Navigation, fields: { key: string; name: string }): Promise<Navigation> {
  const patch: { key?: string; name?: string } = {};
  if (fields.key !== navigation.key) patch.key = fields.key;
  if (fields.name !== navigation.name) patch.name = fields.name;
  if (Object.keys(patch).length === 0) return navigation;
  try {
    return await versionedCall<Navigation>('PATCH', navigationPath(navigation.id), patch, navigation.version);
  } catch (err) {
    if (err instanceof ApiError && err.status === 409) throw new ApiError(409, err.message, [{ path: 'key', message: err.message }]);
    if (err instanceof ApiError && err.status === 412) throw new ApiError(412, t.navRenameConflict);
    throw err;
  }
}

export const deleteNavigation = (id: string) => call('DELETE', navigationPath(id));

export interface PostChoice {
  id: string;
  title: string;
  locale: string;
}

/**
 * Posts an item can link to (drafts too: the public navigation shows the item once one is published): the
 * newest 100, those a search found, and those the open navigation links.
 */
export const postChoices = signal<PostChoice[]>([]);

function rememberChoices(found: PostChoice[]): void {
  if (found.length === 0) return;
  const byId = new Map(postChoices.value.map((post) => [post.id, post]));
  for (const { id, title, locale } of found) byId.set(id, { id, title, locale });
  postChoices.value = [...byId.values()];
}

/** The newest posts. */
export async function loadPostChoices(): Promise<void> {
  try {
    rememberChoices((await call<{ items: PostChoice[] }>('GET', `${ws()}/posts?view=summary&limit=100`)).items);
  } catch (err) {
    error.value = err instanceof Error ? err.message : String(err);
  }
}

/** The `linked` posts not among the choices yet (older than the newest 100), each read by its id. */
export async function loadLinkedPosts(linked: string[]): Promise<void> {
  const missing = [...new Set(linked)].filter((id) => id && !postChoices.value.some((post) => post.id === id));
  // A post deleted since the item was saved stays unnamed: the save then says so beside the item.
  const found = await Promise.all(missing.map((id) => call<PostChoice>('GET', `${ws()}/posts/${encodeURIComponent(id)}`).catch(() => null)));
  rememberChoices(found.filter((post): post is PostChoice => post !== null));
}

/** Posts whose title or slug contains `q` (any case), newest first, at most 20: kept as choices; their ids. */
export async function findPostChoices(q: string): Promise<string[]> {
  const found = (await call<{ items: PostChoice[] }>('GET', `${ws()}/posts?view=summary&limit=20&q=${encodeURIComponent(q)}`)).items;
  rememberChoices(found);
  return found.map((post) => post.id);
}

/* ---- one navigation open in the editor ---- */

export type TreeState = 'saved' | 'unsaved' | 'restored' | 'saving' | 'conflict' | 'refused';

let clientIds = 0;
/** An id for an item not saved yet; the server replaces it with its own. */
export const newItemId = () => `new-${Date.now().toString(36)}-${++clientIds}`;

export const keptKeyOf = (navigationId: string) => `hearth.console.navigation.${workspaceId.value ?? ''}.${navigationId}`;

/** What this browser keeps of an unsaved arrangement: the tree and the version it was arranged on. */
interface Kept {
  version: number;
  tree: TreeNode[];
}

export function openNavigation(navigationId: string) {
  const base = signal<Navigation | null>(null);
  const tree = signal<TreeNode[]>([]);
  const state = signal<TreeState>('saved');
  /** The server's problems per item id (paths relative to the item: `labels`, `labels.de`, `customUrl`...). */
  const itemIssues = signal<Record<string, FieldIssue[]>>({});
  /** A refusal that belongs to no one item. */
  const problem = signal('');
  const keptKey = keptKeyOf(navigationId);

  /** Until it is saved, the arrangement is kept in this browser too: leaving the page or a reload loses nothing. */
  function keep(): void {
    if (state.value === 'saved') localStorage.removeItem(keptKey);
    else localStorage.setItem(keptKey, JSON.stringify({ version: base.value?.version ?? 0, tree: tree.value } satisfies Kept));
  }

  function readKept(): Kept | null {
    try {
      return JSON.parse(localStorage.getItem(keptKey) ?? 'null') as Kept | null;
    } catch {
      return null;
    }
  }

  function adopt(navigation: Navigation): void {
    batch(() => {
      base.value = navigation;
      tree.value = toTree(navigation.items);
      itemIssues.value = {};
      problem.value = '';
      state.value = 'saved';
    });
    keep();
  }

  async function put(version: number): Promise<void> {
    const sent = tree.value;
    const items = toItems(sent);
    state.value = 'saving';
    try {
      const stored = await versionedCall<Navigation>('PUT', `${navigationPath(navigationId)}/items`, { items }, version);
      if (tree.value === sent) return adopt(stored);
      // Changed while the save ran: that change is the person's, still to save (over the stored version).
      batch(() => {
        base.value = stored;
        state.value = 'unsaved';
      });
      keep();
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 412) {
        state.value = 'conflict';
        return keep();
      }
      const byItem: Record<string, FieldIssue[]> = {};
      const other: string[] = [];
      for (const issue of err.issues) {
        const match = /^items\.(\d+)\.(.+)$/.exec(issue.path);
        const item = match ? items[Number(match[1])] : undefined;
        if (item && match) (byItem[item.id] ??= []).push({ path: match[2], message: issue.message });
        else other.push(issue.message);
      }
      batch(() => {
        itemIssues.value = byItem;
        problem.value = other.join('; ') || (err.issues.length ? '' : err.status === 0 ? t.navOffline : err.message);
        state.value = 'refused';
      });
      keep();
    }
  }

  return {
    base,
    tree,
    state,
    itemIssues,
    problem,
    /** Loads the navigation; an arrangement kept from before is restored over it (saved over the version it was made on: a 412 if someone saved since). */
    async load(): Promise<void> {
      const navigation = await call<Navigation>('GET', navigationPath(navigationId));
      const kept = readKept();
      if (!kept) return adopt(navigation);
      batch(() => {
        base.value = { ...navigation, version: kept.version };
        tree.value = kept.tree;
        state.value = 'restored';
      });
    },
    /** Every change is the person's until saved: the tree as they arranged it is what a save sends. */
    change(next: TreeNode[]): void {
      batch(() => {
        tree.value = next;
        if (state.value !== 'conflict') state.value = 'unsaved';
      });
      keep();
    },
    /** A rename answered the navigation at its new version: the arrangement here stays as it is. */
    renamed(stored: Navigation): void {
      base.value = stored;
      keep();
    },
    /** Clears an item's problems once its field is edited. */
    touched(id: string, path: string): void {
      const mine = itemIssues.value[id];
      if (mine?.some((issue) => issue.path === path || issue.path.startsWith(`${path}.`))) itemIssues.value = { ...itemIssues.value, [id]: mine.filter((issue) => issue.path !== path && !issue.path.startsWith(`${path}.`)) };
    },
    /** Saves the whole tree over the version it was loaded at (`If-Match`): someone else's save meanwhile is a 412. */
    save: () => put(base.value?.version ?? 0),
    /** After a 412: the tree as arranged here replaces the one saved meanwhile. */
    async saveOver(): Promise<void> {
      const latest = await call<Navigation>('GET', navigationPath(navigationId));
      base.value = latest;
      await put(latest.version);
    },
    /** After a 412: the saved tree replaces the one arranged here. */
    async takeTheirs(): Promise<void> {
      adopt(await call<Navigation>('GET', navigationPath(navigationId)));
    },
  };
}

export type OpenNavigation = ReturnType<typeof openNavigation>;
