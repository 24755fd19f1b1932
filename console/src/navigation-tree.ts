/**
 * A navigation's items as the editor arranges them: a tree of nodes (children inside their parent), made from
 * and flattened back to the API's flat list. Pure functions: every change answers a new tree.
 */

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

