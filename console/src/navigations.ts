import { batch, signal } from '@preact/signals';
import { ApiError, type FieldIssue } from './api.js';
import { call, error, ws } from './store.js';
import { versionedCall } from './posts.js';

/** The admin API's navigation item (`AdminNavigation.items`): a flat list, nesting by `parentId`. */
export type ItemType = 'CUSTOM_URL' | 'POST' | 'HEADING';
export interface NavigationItem {
  id: string;
  parentId: string | null;
  position: number;
  type: ItemType;
  customUrl: string | null;
  imageUrl: string | null;
  customConfig: Record<string, unknown> | null;
  labels: Record<string, string> | null;
  hiddenLocales: string[];
  postId: string | null;
}

export interface Navigation {
  id: string;
  key: string;
  name: string;
  items: NavigationItem[];
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** An item as the editor holds it: its children inside it, text fields as typed (empty for none). */
export interface TreeNode {
  id: string;
  type: ItemType;
  customUrl: string;
  postId: string;
  labels: Record<string, string>;
  hiddenLocales: string[];
  imageUrl: string | null;
  customConfig: Record<string, unknown> | null;
  children: TreeNode[];
}

export type Move = 'up' | 'down' | 'indent' | 'outdent';

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

/** Posts an item can link to: the newest 100 (drafts too: the public navigation shows the item once one is published). */
export const postChoices = signal<{ id: string; title: string; locale: string }[]>([]);

export async function loadPostChoices(): Promise<void> {
  try {
    postChoices.value = (await call<{ items: { id: string; title: string; locale: string }[] }>('GET', `${ws()}/posts?view=summary&limit=100`)).items;
  } catch (err) {
    error.value = err instanceof Error ? err.message : String(err);
  }
}

/* ---- the tree: pure operations ---- */

export function toTree(items: NavigationItem[]): TreeNode[] {
  const childrenOf = (parentId: string | null): TreeNode[] =>
    items
      .filter((item) => item.parentId === parentId)
      .sort((a, b) => a.position - b.position)
      .map((item) => ({
        id: item.id,
        type: item.type,
        customUrl: item.customUrl ?? '',
        postId: item.postId ?? '',
        labels: { ...(item.labels ?? {}) },
        hiddenLocales: [...item.hiddenLocales],
        imageUrl: item.imageUrl,
        customConfig: item.customConfig,
        children: childrenOf(item.id),
      }));
  return childrenOf(null);
}

/** The request body's items, depth-first; each item's position is its index among its siblings. */
export function toItems(tree: TreeNode[]) {
  const items: (Omit<NavigationItem, 'labels'> & { labels: Record<string, string> | null })[] = [];
  const walk = (nodes: TreeNode[], parentId: string | null) =>
    nodes.forEach((node, position) => {
      const labels = Object.fromEntries(Object.entries(node.labels).filter(([, text]) => text.trim() !== ''));
      items.push({
        id: node.id,
        parentId,
        position,
        type: node.type,
        customUrl: node.type === 'CUSTOM_URL' ? node.customUrl.trim() || null : null,
        postId: node.type === 'POST' ? node.postId || null : null,
        labels: Object.keys(labels).length ? labels : null,
        hiddenLocales: node.hiddenLocales,
        imageUrl: node.imageUrl,
        customConfig: node.customConfig,
      });
      walk(node.children, node.id);
    });
  walk(tree, null);
  return items;
}

const copy = (tree: TreeNode[]): TreeNode[] => tree.map((node) => ({ ...node, labels: { ...node.labels }, hiddenLocales: [...node.hiddenLocales], children: copy(node.children) }));

/** Where a node sits: its sibling list, its index there and its parent (null at the top). */
function locate(tree: TreeNode[], id: string, parent: TreeNode | null = null): { siblings: TreeNode[]; index: number; parent: TreeNode | null } | null {
  const index = tree.findIndex((node) => node.id === id);
  if (index >= 0) return { siblings: tree, index, parent };
  for (const node of tree) {
    const found = locate(node.children, id, node);
    if (found) return found;
  }
  return null;
}

/** Where a node ended up after a move, for the announcement: its position (1-based) and its parent. */
export interface Placed {
  position: number;
  count: number;
  parent: TreeNode | null;
}

/** One move of a node with its children; null when it cannot go that way (first, last, top level). */
export function moved(tree: TreeNode[], id: string, move: Move): { tree: TreeNode[]; placed: Placed } | null {
  const next = copy(tree);
  const at = locate(next, id);
  if (!at) return null;
  const { siblings, index, parent } = at;
  const [node] = siblings.splice(index, 1);
  let target: TreeNode[];
  let newParent: TreeNode | null;
  let newIndex: number;
  if (move === 'up' || move === 'down') {
    newIndex = index + (move === 'up' ? -1 : 1);
    if (newIndex < 0 || newIndex > siblings.length) return null;
    [target, newParent] = [siblings, parent];
  } else if (move === 'indent') {
    // Under the sibling before it, as that sibling's last child.
    if (index === 0) return null;
    newParent = siblings[index - 1];
    target = newParent.children;
    newIndex = target.length;
  } else {
    // Out of its parent, right after it.
    if (!parent) return null;
    const outer = locate(next, parent.id)!;
    [target, newParent, newIndex] = [outer.siblings, outer.parent, outer.index + 1];
  }
  target.splice(newIndex, 0, node);
  return { tree: next, placed: { position: newIndex + 1, count: target.length, parent: newParent } };
}

export function withoutNode(tree: TreeNode[], id: string): TreeNode[] {
  const next = copy(tree);
  const at = locate(next, id);
  if (at) at.siblings.splice(at.index, 1);
  return next;
}

export function withNode(tree: TreeNode[], id: string, change: (node: TreeNode) => void): TreeNode[] {
  const next = copy(tree);
  const at = locate(next, id);
  if (at) change(at.siblings[at.index]);
  return next;
}

export const allNodes = (tree: TreeNode[]): TreeNode[] => tree.flatMap((node) => [node, ...allNodes(node.children)]);

/* ---- one navigation open in the editor ---- */

export type TreeState = 'saved' | 'unsaved' | 'saving' | 'conflict' | 'refused';

let clientIds = 0;
/** An id for an item not saved yet; the server replaces it with its own. */
export const newItemId = () => `new-${Date.now().toString(36)}-${++clientIds}`;

const navigationPath = (id: string) => `${ws()}/navigations/${encodeURIComponent(id)}`;

export function openNavigation(navigationId: string) {
  const base = signal<Navigation | null>(null);
  const tree = signal<TreeNode[]>([]);
  const state = signal<TreeState>('saved');
  /** The server's problems per item id (paths relative to the item: `labels`, `labels.de`, `customUrl`...). */
  const itemIssues = signal<Record<string, FieldIssue[]>>({});
  /** A refusal that belongs to no one item. */
  const problem = signal('');

  function adopt(navigation: Navigation): void {
    batch(() => {
      base.value = navigation;
      tree.value = toTree(navigation.items);
      itemIssues.value = {};
      problem.value = '';
      state.value = 'saved';
    });
  }

  async function put(version: number): Promise<void> {
    const items = toItems(tree.value);
    state.value = 'saving';
    try {
      adopt(await versionedCall<Navigation>('PUT', `${navigationPath(navigationId)}/items`, { items }, version));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      if (err.status === 412) {
        state.value = 'conflict';
        return;
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
        problem.value = other.join('; ') || (err.issues.length ? '' : err.status === 0 ? 'offline' : err.message);
        state.value = 'refused';
      });
    }
  }

  return {
    base,
    tree,
    state,
    itemIssues,
    problem,
    async load(): Promise<void> {
      adopt(await call<Navigation>('GET', navigationPath(navigationId)));
    },
    /** Every change is the person's until saved: the tree as they arranged it is what a save sends. */
    change(next: TreeNode[]): void {
      batch(() => {
        tree.value = next;
        if (state.value !== 'conflict') state.value = 'unsaved';
      });
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
