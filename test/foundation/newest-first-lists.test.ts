import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Types } from 'mongoose';
import { startServices, newWorkspace, type ServiceHarness } from '../support/service-harness.js';
import { uniqueDbName, watchingCommands, type DriverCommand } from '../support/harness.js';
import type { Workspace } from '../../src/workspaces/workspaces.service.js';
import { BUCKET_SIZE, sequenceStore } from '../../src/db/newest-first.js';
import { createPost, deletePost, listPostsAdmin } from '../../src/posts/posts.service.js';
import { postStore } from '../../src/posts/posts.model.js';
import { listPostTypes } from '../../src/posts/post-types.service.js';
import { publishedForImport } from '../support/imported-posts.js';
import { inbox as submissionInbox, markHandled, submit } from '../../src/submissions/submissions.service.js';
import { listConversations, closeConversation } from '../../src/livechat/inbox.service.js';
import { postVisitorMessage } from '../../src/livechat/messages.service.js';
import { findUserByEmail } from '../../src/auth/auth.service.js';
import { OPERATOR } from '../support/harness.js';
import { activateChatService, startChatService } from '../livechat/service-support.js';
import { appointmentStore, newAppointmentId } from '../../src/appointments/appointments.model.js';
import { listForStaff } from '../../src/appointments/staff.service.js';

/**
 * Newest-first admin lists (posts, submissions, chats, booking requests) are read a bucket at a time from the newest
 * (`src/db/newest-first.ts`): FerretDB would otherwise read and sort every match for a page of 25. What a
 * member sees must not change: every page holds exactly what the list's order puts there, across bucket
 * edges, deletions, filters, deep pages and documents stored before buckets existed; and the first page
 * reads only the newest buckets.
 */

const dbName = uniqueDbName('newest');
let services: ServiceHarness;
let workspace: Workspace;
beforeAll(async () => {
  services = await startServices({ redis: true, dbName });
  ({ workspace } = await newWorkspace(services.deps));
});
afterAll(async () => {
  await services?.close();
});

/** The finds the work sends to `collection`, by their filter. */
async function findsOn<T>(collection: string, work: () => Promise<T>): Promise<{ result: T; filters: Record<string, unknown>[] }> {
  const filters: Record<string, unknown>[] = [];
  const result = await watchingCommands(services, (event: DriverCommand) => {
    if (event.commandName === 'find' && event.command.find === collection) filters.push(event.command.filter as Record<string, unknown>);
  }, work);
  return { result, filters };
}

const imported = (i: number, postTypeId: string) =>
  publishedForImport({ postTypeId, locale: 'en', slug: `imported-${i}`, title: `Imported ${i}`, markdown: `Day ${i}`, publishedAt: new Date() });

describe('posts', () => {
  /** Every post of the workspace, newest created first, as the admin list must show them. */
  const reference = async (state?: string) => {
    const docs = await services.deps.db.collection('posts').find({ workspaceId: new Types.ObjectId(workspace.id), ...(state ? { state } : {}) }).sort({ _id: -1 }).toArray();
    return docs.map((doc) => doc._id.toHexString());
  };
  const pageIds = async (page: number, limit: number, extra: { state?: 'DRAFT' | 'PUBLISHED'; q?: string; summary?: boolean } = {}) => {
    const answer = await listPostsAdmin(services.deps, workspace, { page, limit, state: extra.state, q: extra.q, view: extra.summary === false ? undefined : 'summary' });
    return { ids: answer.items.map((item) => item.post.id), hasNext: answer.pageInfo.hasNext };
  };

  beforeAll(async () => {
    // 3 buckets and a bit: imported in bulk (as a migration would), then written one by one as editors do.
    const blogId = (await listPostTypes(services.deps, workspace)).find((type) => type.slug === 'blog')!.id;
    await postStore(services.deps.db).importPublished(workspace.id, Array.from({ length: 3 * BUCKET_SIZE - 10 }, (_, i) => imported(i, blogId)));
    for (let i = 0; i < 20; i += 1) await createPost(services.deps, workspace, { locale: 'en', slug: `written-${i}`, title: `Written ${i}` });
  });

  test('every page, at every size, holds what newest-created-first puts there; summaries and full answers alike', async () => {
    const all = await reference();
    expect(all).toHaveLength(3 * BUCKET_SIZE + 10);
    for (const limit of [7, 25, BUCKET_SIZE, 100]) {
      for (let page = 1; (page - 1) * limit <= all.length; page += 1) {
        const expected = all.slice((page - 1) * limit, page * limit);
        const summary = await pageIds(page, limit);
        expect(summary).toEqual({ ids: expected, hasNext: page * limit < all.length });
        if (limit === 25) expect((await pageIds(page, limit, { summary: false })).ids).toEqual(expected);
      }
    }
  });

  test('the first page reads the newest buckets only: the top bucket, then bucket by bucket', async () => {
    const { result, filters } = await findsOn('posts', () => pageIds(1, 25));
    expect(result.ids).toEqual((await reference()).slice(0, 25));
    expect(filters.length).toBeGreaterThan(0);
    expect(filters.length).toBeLessThanOrEqual(2);
    for (const filter of filters) expect(typeof filter.listBucket).toBe('number');
  });

  test('filters and search hold across buckets: drafts (the newest only), published ones below them, a title part', async () => {
    const drafts = await reference('DRAFT');
    expect(drafts).toHaveLength(20);
    expect((await pageIds(1, 25, { state: 'DRAFT' })).ids).toEqual(drafts);
    const published = await reference('PUBLISHED');
    expect(await pageIds(2, 25, { state: 'PUBLISHED' })).toEqual({ ids: published.slice(25, 50), hasNext: true });
    // "Imported 1" is part of Imported 1, 10-19 and 100-171: 83 of them, newest first, across every bucket.
    const matching = (await services.deps.db.collection('posts').find({ workspaceId: new Types.ObjectId(workspace.id), title: { $regex: '^Imported 1' } }).sort({ _id: -1 }).toArray()).map((doc) => doc._id.toHexString());
    expect((await pageIds(1, 50, { q: 'imported 1' })).ids).toEqual(matching.slice(0, 50));
    expect((await pageIds(2, 50, { q: 'imported 1' })).ids).toEqual(matching.slice(50, 100));
  });

  test('deleted posts leave gaps the next page does not skip over; posts stored before buckets come last once a node has started', async () => {
    const before = await reference();
    // The whole newest bucket but two, and a few of the one below.
    for (const id of [...before.slice(0, 28), before[40], before[41]]) await deletePost(services.deps, workspace, id);
    const after = await reference();
    expect((await pageIds(1, 25)).ids).toEqual(after.slice(0, 25));
    expect((await pageIds(2, 25)).ids).toEqual(after.slice(25, 50));

    // As an earlier version stored them: the oldest ten without a bucket, and no record of the upgrade.
    const oldest = after.slice(-10);
    await services.deps.db.collection('posts').updateMany({ _id: { $in: oldest.map((id) => new Types.ObjectId(id)) } }, { $unset: { listBucket: '' } });
    await services.deps.db.collection<{ _id: string }>('once_claims').deleteMany({ _id: 'upgrade:newest-first-buckets' });
    const restarted = await startServices({ redis: true, dbName });
    await restarted.close();
    const written = await createPost(services.deps, workspace, { locale: 'en', slug: 'after-upgrade', title: 'After the upgrade' });
    const all = [written.id, ...after];
    const pages: string[] = [];
    for (let page = 1; (page - 1) * 50 < all.length; page += 1) pages.push(...(await pageIds(page, 50)).ids);
    expect(pages).toEqual(all);
  });
});

describe('numbers taken at once', () => {
  test('takes of one counter at once on one node get distinct numbers, from one increment while the first is under way', async () => {
    const sequences = sequenceStore(services.deps.db);
    // 51 takes of one number and 49 of two: 149 numbers.
    const counts = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 || i === 99 ? 1 : 2));
    const increments: unknown[] = [];
    const taken = await watchingCommands(
      services,
      (event) => event.commandName === 'findAndModify' && event.command.findAndModify === 'sequences' && increments.push(event.command),
      () => Promise.all(counts.map((count) => sequences.take('at-once', count))),
    );
    // Every number from 1 to 149 given once, each take its own.
    const given = new Set<number>();
    taken.forEach((last, i) => {
      for (let number = last - counts[i] + 1; number <= last; number += 1) given.add(number);
    });
    expect(given.size).toBe(149);
    expect(Math.max(...given)).toBe(149);
    expect(increments).toHaveLength(2);
  });

  test('a counter fallen back below numbers it gave (racing increments on two nodes leave it so) hides no post from the list', async () => {
    const { workspace: racing } = await newWorkspace(services.deps);
    const blogId = (await listPostTypes(services.deps, racing)).find((type) => type.slug === 'blog')!.id;
    await postStore(services.deps.db).importPublished(racing.id, Array.from({ length: BUCKET_SIZE - 4 }, (_, i) => imported(i, blogId)));
    // The last five cross into the next bucket.
    for (let i = 0; i < 5; i += 1) await createPost(services.deps, racing, { locale: 'en', slug: `raced-${i}`, title: `Raced ${i}` });
    await services.deps.db.collection<{ _id: string; value: number }>('sequences').updateOne({ _id: `${racing.id}:posts` }, { $set: { value: BUCKET_SIZE - 4 } });
    const all = (await services.deps.db.collection('posts').find({ workspaceId: new Types.ObjectId(racing.id) }).sort({ _id: -1 }).toArray()).map((doc) => doc._id.toHexString());
    // Another node, which has not read the list before: it starts from the counter.
    const other = await startServices({ redis: true, dbName });
    try {
      const first = await listPostsAdmin(other.deps, racing, { page: 1, limit: 25, view: 'summary' });
      expect(first.items.map((item) => item.post.id)).toEqual(all.slice(0, 25));
    } finally {
      await other.close();
    }
  });
});

describe('submissions', () => {
  test('newest first across buckets, with the open/handled filter and handled ones in between', async () => {
    const operator = (await findUserByEmail(services.deps, OPERATOR.email))!;
    const sent: string[] = [];
    for (let i = 0; i < BUCKET_SIZE + 30; i += 1) {
      sent.push((await submit(services.deps, workspace, { name: `Visitor ${i}`, email: `v${i}@example.test`, message: `Hello ${i}` })).id);
    }
    const newest = [...sent].reverse();
    const handled = new Set(newest.filter((_, index) => index % 3 === 0));
    for (const id of handled) await markHandled(services.deps, workspace, id, operator, true);
    const ids = async (query: { state?: 'open' | 'handled'; page: number; limit: number }) => (await submissionInbox(services.deps, workspace, { ...query, withTotal: false })).items.map((item) => item.id);

    expect(await ids({ page: 1, limit: 50 })).toEqual(newest.slice(0, 50));
    expect(await ids({ page: 2, limit: 50 })).toEqual(newest.slice(50, 100));
    const open = newest.filter((id) => !handled.has(id));
    expect(await ids({ state: 'open', page: 1, limit: 25 })).toEqual(open.slice(0, 25));
    expect(await ids({ state: 'open', page: 2, limit: 25 })).toEqual(open.slice(25, 50));
    expect(await ids({ state: 'handled', page: 1, limit: 25 })).toEqual(newest.filter((id) => handled.has(id)).slice(0, 25));
    // A counted page counts them all.
    expect((await submissionInbox(services.deps, workspace, { page: 1, limit: 10 })).pageInfo.total).toBe(sent.length);
  });
});

describe('chats', () => {
  test('in order of activity across buckets: a message or a close moves an old conversation to the top', async () => {
    await activateChatService(services.deps, workspace);
    const started: { conversationId: string; conversationToken: string }[] = [];
    for (let i = 0; i < BUCKET_SIZE + 10; i += 1) started.push(await startChatService(services.deps, workspace, { visitorSessionId: `visitor-${i}` }));
    const ids = async (status: 'OPEN' | 'CLOSED' | undefined, page: number, limit: number) =>
      (await listConversations(services.deps, workspace.id, { status, page, limit, withTotal: false })).items.map((item) => item.id);
    const newestFirst = started.map((chat) => chat.conversationId).reverse();
    expect(await ids('OPEN', 1, 25)).toEqual(newestFirst.slice(0, 25));

    // The very first conversation (the oldest bucket) speaks again: it is the newest activity now.
    await postVisitorMessage(services.deps, started[0].conversationToken, { body: 'Still there?' });
    const { result, filters } = await findsOn('livechat_conversations', () => ids('OPEN', 1, 25));
    expect(result).toEqual([started[0].conversationId, ...newestFirst.slice(0, 24)]);
    expect(filters.every((filter) => typeof filter.activityBucket === 'number')).toBe(true);

    // The second oldest is closed by the team: first among the closed, and gone from the open ones.
    await closeConversation(services.deps, workspace.id, started[1].conversationId);
    expect(await ids('CLOSED', 1, 25)).toEqual([started[1].conversationId]);
    expect(await ids(undefined, 1, 3)).toEqual([started[1].conversationId, started[0].conversationId, newestFirst[0]]);
    const open = [started[0].conversationId, ...newestFirst.filter((id) => id !== started[0].conversationId && id !== started[1].conversationId)];
    expect([...(await ids('OPEN', 1, 50)), ...(await ids('OPEN', 2, 50))]).toEqual(open);
  });
});

describe('booking requests', () => {
  test('newest requested first across buckets, with a status filter; those stored before buckets come last once a node has started', async () => {
    const store = appointmentStore(services.deps.db);
    const requested: string[] = [];
    for (let i = 0; i < BUCKET_SIZE + 30; i += 1) {
      const id = newAppointmentId();
      const at = new Date(Date.UTC(2030, 0, 1, 9) + i * 60_000);
      await store.create(
        workspace.id,
        id,
        { requestedAt: at, durationMinutes: 60, timezone: 'UTC', visitorName: `Visitor ${i}`, visitorEmail: `v${i}@example.test`, visitorPhone: null, visitorMessage: null, visitorSessionId: null, externalId: null, identityVerified: false, visitorAttributes: null, createdAt: new Date(Date.UTC(2025, 0, 1) + i * 1000) },
        `token-hash-${i}`,
      );
      requested.push(id);
    }
    const newest = [...requested].reverse();
    const declined = new Set(newest.filter((_, index) => index % 4 === 0));
    for (const id of declined) await store.decline(workspace.id, id, null, new Date());
    const ids = async (status: 'PENDING' | 'REJECTED' | undefined, page: number, limit: number) =>
      (await listForStaff(services.deps, workspace.id, { status, page, limit, withTotal: false })).items.map((item) => item.id);

    const { result, filters } = await findsOn('appointments', () => ids(undefined, 1, 25));
    expect(result).toEqual(newest.slice(0, 25));
    expect(filters.every((filter) => typeof filter.listBucket === 'number')).toBe(true);
    expect([...(await ids(undefined, 1, 50)), ...(await ids(undefined, 2, 50))]).toEqual(newest);
    const pending = newest.filter((id) => !declined.has(id));
    expect([...(await ids('PENDING', 1, 40)), ...(await ids('PENDING', 2, 40))]).toEqual(pending);
    expect(await ids('REJECTED', 1, 25)).toEqual([...declined].slice(0, 25));

    // As an earlier version stored them: the oldest ten without a bucket, and no record of the upgrade.
    await services.deps.db.collection('appointments').updateMany({ _id: { $in: requested.slice(0, 10).map((id) => new Types.ObjectId(id)) } }, { $unset: { listBucket: '' } });
    await services.deps.db.collection<{ _id: string }>('once_claims').deleteMany({ _id: 'upgrade:appointment-list-buckets' });
    expect(await ids(undefined, 2, 50)).toEqual(newest.slice(50, -10));
    const restarted = await startServices({ redis: true, dbName });
    await restarted.close();
    expect(await ids(undefined, 2, 50)).toEqual(newest.slice(50));
  });
});
