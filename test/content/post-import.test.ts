import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { startServices, newWorkspace, type ServiceHarness } from '../support/service-harness.js';
import { uniqueDbName, watchingCommands, type DriverCommand } from '../support/harness.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { Types } from 'mongoose';
import { createPost } from '../../src/posts/posts.service.js';
import { postStore } from '../../src/posts/posts.model.js';
import { postGroupStore } from '../../src/posts/post-groups.model.js';
import { listPostTypes } from '../../src/posts/post-types.service.js';
import { publishedForImport } from '../support/imported-posts.js';

/**
 * A bulk import of published posts (`postStore.importPublished`, what a migration and bench:scale use) files
 * each post under its translation group in one insert for the batch: on FerretDB a write by `_id` reads the
 * whole collection, so one upsert per group made importing 100,000 posts 100,000 such reads.
 */
let services: ServiceHarness;
let workspace: Workspace;
beforeAll(async () => {
  services = await startServices({ dbName: uniqueDbName('import') });
  ({ workspace } = await newWorkspace(services.deps));
});
afterAll(async () => {
  await services?.close();
});

test('imported posts join their groups, new and stored ones, with one insert for the batch and one write per stored group', async () => {
  const blogId = (await listPostTypes(services.deps, workspace)).find((type) => type.slug === 'blog')!.id;
  const stored = await createPost(services.deps, workspace, { locale: 'en', slug: 'stored-en', title: 'Stored' });
  const imported = Array.from({ length: 20 }, (_, i) =>
    publishedForImport({ postTypeId: blogId, locale: 'en', slug: `imported-${i}`, title: `Imported ${i}`, markdown: `Day ${i}`, publishedAt: new Date() }),
  );
  // The German translation of the stored post, imported into its group.
  const translation = { ...publishedForImport({ postTypeId: blogId, locale: 'de', slug: 'stored-de', title: 'Gespeichert', markdown: 'Tag', publishedAt: new Date() }), translationGroupId: stored.translationGroupId };

  const writes: string[] = [];
  await watchingCommands(services, (event: DriverCommand) => {
    const collection = event.command[event.commandName];
    if (collection === 'post_groups' && ['insert', 'update', 'findAndModify'].includes(event.commandName)) writes.push(event.commandName);
  }, () => postStore(services.deps.db).importPublished(workspace.id, [...imported, translation]));
  expect(writes).toEqual(['insert', 'update']);

  const idOf = async (locale: string, slug: string) =>
    (await services.deps.db.collection('posts').findOne({ workspaceId: new Types.ObjectId(workspace.id), locale, slug }))!._id.toHexString();
  const groups = postGroupStore(services.deps.db);
  expect((await groups.members(workspace.id, stored.translationGroupId)).sort()).toEqual([stored.id, await idOf('de', 'stored-de')].sort());
  for (const post of imported.slice(0, 3)) {
    expect(await groups.members(workspace.id, post.translationGroupId)).toEqual([await idOf('en', post.content.slug)]);
  }
});
