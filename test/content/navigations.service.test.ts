import { afterAll, beforeAll, beforeEach, expect, test } from '@jest/globals';
import { failure, newWorkspace, startServices, type ServiceHarness } from '../support/service-harness.js';
import type { DomainEvent } from '../../src/events/events.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { createPost } from '../../src/posts/posts.service.js';
import {
  createNavigation,
  deleteNavigation,
  getPublicNavigation,
  renameNavigation,
  replaceNavigationItems,
} from '../../src/navigations/navigations.service.js';
import type { NavigationItemInput } from '../../src/navigations/navigations.schemas.js';

// The item-tree rules (item-tree.ts, checked by replaceNavigationItems) and the navigation events.
const events: DomainEvent[] = [];
let services: ServiceHarness;
beforeAll(async () => {
  services = await startServices();
  services.deps.events.subscribe(async (event) => {
    events.push(event);
  });
});
afterAll(async () => {
  await services.close();
});

let ws: Workspace;
beforeEach(async () => {
  ws = (await newWorkspace(services.deps)).workspace;
});

type Item = Partial<NavigationItemInput> & Pick<NavigationItemInput, 'parentId' | 'position' | 'type'>;
const replace = (nid: string, items: Item[]) => replaceNavigationItems(services.deps, ws, nid, items);

async function expectIssue(nid: string, items: Item[], path: string): Promise<void> {
  const refused = await failure(replace(nid, items), 'validation_failed');
  expect(refused.issues?.map((issue) => issue.path)).toContain(path);
}

test('every item-tree rule failure is a field-level issue, and nothing is stored', async () => {
  const nav = await createNavigation(services.deps, ws, { key: 'footer', name: 'footer' });
  const other = (await newWorkspace(services.deps)).workspace;
  const foreign = await createPost(services.deps, other, { locale: 'en', slug: 'foreign', title: 'Foreign' });
  const heading: Item = { parentId: null, position: 0, type: 'HEADING', labels: { en: 'H' } };

  await expectIssue(nav.id, [{ parentId: null, position: 0, type: 'CUSTOM_URL', labels: { en: 'x' } }], 'items.0.customUrl');
  await expectIssue(nav.id, [{ parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/x' }], 'items.0.labels');
  await expectIssue(nav.id, [{ parentId: null, position: 0, type: 'CUSTOM_URL', customUrl: '/x', labels: {} }], 'items.0.labels');
  await expectIssue(nav.id, [{ parentId: null, position: 0, type: 'HEADING' }], 'items.0.labels');
  await expectIssue(nav.id, [{ parentId: null, position: 0, type: 'POST' }], 'items.0.postId');
  await expectIssue(nav.id, [{ parentId: null, position: 0, type: 'POST', postId: foreign.id }], 'items.0.postId');
  await expectIssue(nav.id, [{ parentId: null, position: 0, type: 'POST', postId: 'f'.repeat(24) }], 'items.0.postId');
  await expectIssue(nav.id, [{ ...heading, postId: foreign.id }], 'items.0.postId');
  await expectIssue(nav.id, [{ ...heading, parentId: 'nowhere' }], 'items.0.parentId');
  await expectIssue(nav.id, [{ ...heading, id: 'a', parentId: 'a' }], 'items.0.parentId');
  await expectIssue(
    nav.id,
    [
      { ...heading, id: 'a', parentId: 'b' },
      { ...heading, id: 'b', parentId: 'a' },
    ],
    'items.1.parentId',
  );
  await expectIssue(nav.id, [{ ...heading, id: 'a' }, { ...heading, id: 'a', position: 1 }], 'items.1.id');
  await expectIssue(nav.id, [{ ...heading, id: 'a' }, { ...heading, id: 'b' }], 'items.1.position');
  // Nothing was stored by the failed attempts.
  expect((await getPublicNavigation(services.deps, ws, 'footer')).items).toEqual([]);
  expect(events.filter((e) => e.event === 'navigation.items.replaced' && 'navigationId' in e && e.navigationId === nav.id)).toEqual([]);
});

test('create, re-key, delete; key clash; events for each change', async () => {
  const nav = await createNavigation(services.deps, ws, { key: 'main', name: 'Main' });
  await failure(createNavigation(services.deps, ws, { key: 'main', name: 'Again' }), 'navigation_key_taken');
  const renamed = await renameNavigation(services.deps, ws, nav.id, { key: 'primary', name: 'Primary' });
  expect(renamed).toMatchObject({ key: 'primary', name: 'Primary' });
  await failure(getPublicNavigation(services.deps, ws, 'main'), 'navigation_not_found');
  expect((await getPublicNavigation(services.deps, ws, 'primary')).key).toBe('primary');
  await replace(nav.id, [{ parentId: null, position: 0, type: 'HEADING', labels: { en: 'H' } }]);
  await deleteNavigation(services.deps, ws, nav.id);
  await failure(getPublicNavigation(services.deps, ws, 'primary'), 'navigation_not_found');

  const mine = events.filter((e) => 'navigationId' in e && e.navigationId === nav.id);
  expect(mine.map((e) => e.event)).toEqual(['navigation.created', 'navigation.updated', 'navigation.items.replaced', 'navigation.deleted']);
  expect(mine[1]).toEqual({ event: 'navigation.updated', workspaceId: ws.id, navigationId: nav.id, key: 'primary', name: 'Primary', at: expect.any(String) });
});
