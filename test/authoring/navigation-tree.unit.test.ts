import { expect, test } from '@jest/globals';
import { moved, toItems, toTree, withoutNode, type NavigationItem, type TreeNode } from '../../console/src/navigation-tree.js';

/** The team app's navigation tree: the moves the editor's buttons make, and the flat list a save sends. */

const item = (id: string, parentId: string | null, position: number): NavigationItem => ({
  id,
  parentId,
  position,
  type: 'CUSTOM_URL',
  customUrl: `/${id}`,
  imageUrl: null,
  customConfig: null,
  labels: { en: id },
  hiddenLocales: [],
  postId: null,
});

/** The tree as one line: `a(b,c),d`. */
const shape = (tree: TreeNode[]): string => tree.map((node) => (node.children.length ? `${node.id}(${shape(node.children)})` : node.id)).join(',');

// a, b (with b1, b2), c; stored out of order to show positions decide.
const start = toTree([item('c', null, 2), item('b2', 'b', 1), item('a', null, 0), item('b', null, 1), item('b1', 'b', 0)]);

test('the flat list becomes a tree by parent and position', () => {
  expect(shape(start)).toBe('a,b(b1,b2),c');
});

test('up and down swap a node (with its children) with its sibling; not past either end', () => {
  expect(shape(moved(start, 'b', 'up')!.tree)).toBe('b(b1,b2),a,c');
  expect(shape(moved(start, 'b', 'down')!.tree)).toBe('a,c,b(b1,b2)');
  expect(shape(moved(start, 'b2', 'up')!.tree)).toBe('a,b(b2,b1),c');
  expect(moved(start, 'a', 'up')).toBeNull();
  expect(moved(start, 'c', 'down')).toBeNull();
  expect(moved(start, 'b2', 'down')).toBeNull();
});

test('indent puts a node last under the sibling above; outdent puts it right after its parent', () => {
  const indented = moved(start, 'c', 'indent')!;
  expect(shape(indented.tree)).toBe('a,b(b1,b2,c)');
  expect(indented.placed).toMatchObject({ position: 3, count: 3 });
  expect(indented.placed.parent?.id).toBe('b');
  expect(shape(moved(start, 'b', 'indent')!.tree)).toBe('a(b(b1,b2)),c');
  const outdented = moved(start, 'b1', 'outdent')!;
  expect(shape(outdented.tree)).toBe('a,b(b2),b1,c');
  expect(outdented.placed).toMatchObject({ position: 3, count: 4, parent: null });
  expect(moved(start, 'a', 'indent')).toBeNull();
  expect(moved(start, 'a', 'outdent')).toBeNull();
  // The tree given is never changed.
  expect(shape(start)).toBe('a,b(b1,b2),c');
});

test('a save sends the items depth-first, positions numbered among siblings, empty fields left out', () => {
  const tree = moved(start, 'c', 'indent')!.tree;
  tree[0].labels = { en: 'A', de: '  ' };
  const items = toItems(tree);
  expect(items.map((entry) => [entry.id, entry.parentId, entry.position])).toEqual([
    ['a', null, 0],
    ['b', null, 1],
    ['b1', 'b', 0],
    ['b2', 'b', 1],
    ['c', 'b', 2],
  ]);
  expect(items[0].labels).toEqual({ en: 'A' });
  expect(items[0].postId).toBeNull();
  expect(shape(withoutNode(start, 'b'))).toBe('a,c');
});
