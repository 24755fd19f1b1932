import { Types } from 'mongoose';
import type { FieldIssue } from '../shared/errors.js';
import type { NavigationItem } from './navigations.model.js';
import type { NavigationItemInput } from './navigations.schemas.js';

/**
 * The rules of a navigation's item tree: unique ids, parents that exist in the request, no cycles,
 * unique positions among siblings, per-type fields, posts of this workspace (`knownPostIds`). Each
 * failure is a field-level issue `items.<index>.<field>`.
 */
export function itemTreeIssues(items: NavigationItemInput[], knownPostIds: Set<string>): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const at = (index: number, field: string, message: string) => issues.push({ path: `items.${index}.${field}`, message });

  const clientIds = new Map<string, number>();
  items.forEach((item, index) => {
    if (item.id === undefined) return;
    if (clientIds.has(item.id)) at(index, 'id', 'must be unique within the request');
    else clientIds.set(item.id, index);
  });

  items.forEach((item, index) => {
    if (item.parentId !== null && !clientIds.has(item.parentId)) at(index, 'parentId', 'must be the id of another item of this request');
    if (item.parentId !== null && item.parentId === item.id) at(index, 'parentId', 'an item cannot be its own parent');
    const hasLabels = !!item.labels && Object.keys(item.labels).length > 0;
    switch (item.type) {
      case 'CUSTOM_URL':
        if (!item.customUrl) at(index, 'customUrl', 'is required for CUSTOM_URL items');
        if (!hasLabels) at(index, 'labels', 'at least one label is required for CUSTOM_URL items');
        break;
      case 'HEADING':
        if (!hasLabels) at(index, 'labels', 'at least one label is required for HEADING items');
        if (item.customUrl) at(index, 'customUrl', 'only CUSTOM_URL items have a customUrl');
        break;
      case 'POST':
        if (!item.postId) at(index, 'postId', 'is required for POST items');
        else if (!knownPostIds.has(item.postId)) at(index, 'postId', 'no such post in this workspace');
        if (item.customUrl) at(index, 'customUrl', 'only CUSTOM_URL items have a customUrl');
        break;
    }
    if (item.type !== 'POST' && item.postId) at(index, 'postId', 'only POST items refer to a post');
  });

  // Cycles: follow parents from every item; a walk longer than the list loops.
  items.forEach((item, index) => {
    let parent = item.parentId;
    let steps = 0;
    while (parent !== null && clientIds.has(parent) && steps <= items.length) {
      parent = items[clientIds.get(parent)!].parentId;
      steps += 1;
    }
    if (steps > items.length && item.parentId !== item.id) at(index, 'parentId', 'the parent chain forms a cycle');
  });

  const siblingPositions = new Map<string, number>();
  items.forEach((item, index) => {
    const slot = `${item.parentId ?? ''}\u0000${item.position}`;
    if (siblingPositions.has(slot)) at(index, 'position', 'must be unique among siblings');
    else siblingPositions.set(slot, index);
  });

  return issues;
}

/**
 * The items as stored, from a valid request: ids of the navigation's existing items (`existingIds`) are
 * kept; other (client) ids are replaced by fresh server ids, and `parentId` references follow.
 */
export function toStoredItems(items: NavigationItemInput[], existingIds: Set<string>): NavigationItem[] {
  const serverIds = new Map<string, string>();
  const finalId = (clientId: string | undefined) => {
    if (clientId === undefined) return new Types.ObjectId().toHexString();
    if (!serverIds.has(clientId)) serverIds.set(clientId, existingIds.has(clientId) ? clientId : new Types.ObjectId().toHexString());
    return serverIds.get(clientId)!;
  };
  return items.map((item) => ({
    id: finalId(item.id),
    parentId: item.parentId === null ? null : finalId(item.parentId),
    position: item.position,
    type: item.type,
    customUrl: item.type === 'CUSTOM_URL' ? item.customUrl! : null,
    imageUrl: item.imageUrl ?? null,
    customConfig: item.customConfig ?? null,
    labels: item.labels && Object.keys(item.labels).length ? item.labels : null,
    hiddenLocales: item.hiddenLocales ?? [],
    postId: item.type === 'POST' ? item.postId! : null,
  }));
}

/** Depth-first, siblings by position: the flat list reads in menu order. */
export function orderTree<T extends { id: string; parentId: string | null; position: number }>(items: T[]): T[] {
  const children = new Map<string | null, T[]>();
  for (const item of items) children.set(item.parentId, [...(children.get(item.parentId) ?? []), item]);
  const out: T[] = [];
  const walk = (parent: string | null) => {
    for (const child of (children.get(parent) ?? []).sort((a, b) => a.position - b.position)) {
      out.push(child);
      walk(child.id);
    }
  };
  walk(null);
  return out;
}
