import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { createWorkspace, eventually, request, startTestNode, uniqueDbName, type WorkspaceFixture } from '../support/harness.js';
import type { HearthNode } from '../../src/app/node.js';
import type { DomainEvent } from '../../src/events/events.js';
import { publishPost } from '../../src/posts/publication.service.js';
import { postScheduleStore } from '../../src/posts/post-schedules.model.js';
import { recoverSchedules, runScheduledChange, SCHEDULED_CHANGE_JOB } from '../../src/posts/schedule.service.js';
import { findWorkspace } from '../../src/workspaces/workspaces.service.js';
import { startReceiver } from '../webhooks/receiver.js';
import { contentAdmin, expectIssue } from './content-helpers.js';

// Scheduled publishing (issue 17): `{at}` on publish/unpublish, the schedule list and its cancellation,
// and the job that applies the change through the manual publish/unpublish at its time.

let node: HearthNode;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let hookCounter = 0;
const nodes: HearthNode[] = [];
beforeAll(async () => {
  receiver = await startReceiver();
  node = await startTestNode();
});
afterAll(async () => {
  await node.stop();
  for (const other of nodes) await other.stop().catch(() => undefined);
  await receiver.stop();
});

/** A fresh workspace whose webhook goes to its own receiver path. */
async function hooked(url = node.url) {
  const ws = await createWorkspace(url);
  const path = `/sched-${++hookCounter}`;
  const patched = await request(url, `/admin/workspaces/${ws.id}`, { method: 'PATCH', token: ws.token, body: { webhookUrl: receiver.url(path) } });
  expect(patched.status).toBe(200);
  return { ws, admin: contentAdmin(url, ws), events: (event: string, postId: string) => receiver.on(path).filter((hit) => hit.body?.event === event && hit.body?.postId === postId) };
}

const inMs = (ms: number) => new Date(Date.now() + ms).toISOString();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const schedulePath = (ws: WorkspaceFixture, pid: string) => `/admin/workspaces/${ws.id}/posts/${pid}/schedule`;
const change = (ws: WorkspaceFixture, pid: string, action: 'publish' | 'unpublish', body?: unknown, token = ws.token, url = node.url) =>
  request(url, `/admin/workspaces/${ws.id}/posts/${pid}/${action}`, { method: 'POST', token, body });
const publicPost = (ws: WorkspaceFixture, slug: string, url = node.url) => request(url, `/external/posts/${slug}`, { apiKey: ws.apiKey });
const publicSlugs = async (ws: WorkspaceFixture) =>
  (await request(node.url, '/external/posts', { apiKey: ws.apiKey })).body.items.map((item: { slug: string }) => item.slug);
const jobsOf = (scheduleId: string) => node.deps.db.collection('jobs').countDocuments({ name: SCHEDULED_CHANGE_JOB, 'data.scheduleId': scheduleId });

test('a publish scheduled ahead: 202 with the entry, hidden until its time, then public (cache invalidated) with one post.published', async () => {
  const { ws, admin, events } = await hooked();
  const post = await admin.createPost({ slug: 'launch', title: 'Launch' });
  const at = inMs(1500);
  const res = await change(ws, post.id, 'publish', { at });
  expect(res.status).toBe(202);
  expect(res.body).toEqual({ id: expect.any(String), postId: post.id, action: 'publish', at, createdAt: expect.any(String) });
  expect((await request(node.url, schedulePath(ws, post.id), { token: ws.token })).body.items).toEqual([res.body]);
  // Still a draft; the empty public list is now in the content cache and must be invalidated by the job.
  expect((await admin.call(`/posts/${post.id}`)).state).toBe('DRAFT');
  expect(await publicSlugs(ws)).toEqual([]);
  expect((await publicPost(ws, 'launch')).status).toBe(404);

  await eventually(async () => (await publicSlugs(ws)).includes('launch'), 10_000, 100);
  expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at));
  const published = await admin.call(`/posts/${post.id}`);
  expect(published.state).toBe('PUBLISHED');
  expect(Date.parse(published.publishedAt)).toBeGreaterThanOrEqual(Date.parse(at));
  expect((await publicPost(ws, 'launch')).body.title).toBe('Launch');
  expect((await request(node.url, schedulePath(ws, post.id), { token: ws.token })).body.items).toEqual([]);
  await eventually(() => events('post.published', post.id).length === 1, 5_000, 50);
  await sleep(800);
  expect(events('post.published', post.id)).toHaveLength(1);
  expect(await jobsOf(res.body.id)).toBe(0);
}, 20_000);

test('an unpublish scheduled ahead hides the post at its time, with one post.unpublished', async () => {
  const { ws, admin, events } = await hooked();
  const post = await admin.published({ slug: 'sale', title: 'Sale' });
  const res = await change(ws, post.id, 'unpublish', { at: inMs(1000) });
  expect(res.status).toBe(202);
  expect(res.body.action).toBe('unpublish');
  expect((await publicPost(ws, 'sale')).status).toBe(200);
  expect((await admin.call(`/posts/${post.id}`)).state).toBe('PUBLISHED');
  await eventually(async () => (await publicPost(ws, 'sale')).status === 404, 10_000, 100);
  expect((await admin.call(`/posts/${post.id}`)).state).toBe('UNPUBLISHED');
  await eventually(() => events('post.unpublished', post.id).length === 1, 5_000, 50);
  await sleep(500);
  expect(events('post.unpublished', post.id)).toHaveLength(1);
}, 20_000);

test('list and cancel: one by id, then all; cancelled changes never run', async () => {
  const { ws, admin, events } = await hooked();
  const post = await admin.createPost({ slug: 'maybe', title: 'Maybe' });
  const later = (await change(ws, post.id, 'unpublish', { at: inMs(3_600_000) })).body;
  const first = (await change(ws, post.id, 'publish', { at: inMs(1000) })).body;
  const second = (await change(ws, post.id, 'publish', { at: inMs(1200) })).body;
  const list = await request(node.url, schedulePath(ws, post.id), { token: ws.token });
  expect(list.status).toBe(200);
  expect(list.body.items.map((entry: { id: string }) => entry.id)).toEqual([first.id, second.id, later.id]);

  const one = await request(node.url, `${schedulePath(ws, post.id)}/${first.id}`, { method: 'DELETE', token: ws.token });
  expect(one.status).toBe(204);
  expect(await jobsOf(first.id)).toBe(0);
  const again = await request(node.url, `${schedulePath(ws, post.id)}/${first.id}`, { method: 'DELETE', token: ws.token });
  expect(again.status).toBe(404);
  expect(again.body.code).toBe('schedule_not_found');
  expect((await request(node.url, `${schedulePath(ws, post.id)}/not-an-id`, { method: 'DELETE', token: ws.token })).status).toBe(404);
  expect((await request(node.url, schedulePath(ws, post.id), { token: ws.token })).body.items.map((entry: { id: string }) => entry.id)).toEqual([second.id, later.id]);

  const all = await request(node.url, schedulePath(ws, post.id), { method: 'DELETE', token: ws.token });
  expect(all.status).toBe(200);
  expect(all.body.items.map((entry: { id: string }) => entry.id)).toEqual([second.id, later.id]);
  expect((await request(node.url, schedulePath(ws, post.id), { token: ws.token })).body.items).toEqual([]);
  expect((await request(node.url, schedulePath(ws, post.id), { method: 'DELETE', token: ws.token })).body.items).toEqual([]);
  expect(await jobsOf(second.id)).toBe(0);

  await sleep(2000);
  expect((await admin.call(`/posts/${post.id}`)).state).toBe('DRAFT');
  expect((await publicPost(ws, 'maybe')).status).toBe(404);
  expect(events('post.published', post.id)).toHaveLength(0);
}, 20_000);

test('no body or no `at` is today\'s publish; `at` now or past happens at once; a malformed `at` is 400 with issues', async () => {
  const { ws, admin } = await hooked();
  const a = await admin.createPost({ slug: 'a', title: 'A' });
  const plain = await request(node.url, `/admin/workspaces/${ws.id}/posts/${a.id}/publish`, { method: 'POST', token: ws.token });
  expect(plain.status).toBe(200);
  expect(plain.body.state).toBe('PUBLISHED');
  expect((await change(ws, a.id, 'unpublish', { other: 1 })).body.state).toBe('UNPUBLISHED');

  const b = await admin.createPost({ slug: 'b', title: 'B' });
  const past = await change(ws, b.id, 'publish', { at: '2020-01-01T00:00:00Z' });
  expect(past.status).toBe(200);
  expect(past.body).toMatchObject({ id: b.id, state: 'PUBLISHED' });
  expect((await publicPost(ws, 'b')).status).toBe(200);
  const pastUnpublish = await change(ws, b.id, 'unpublish', { at: new Date().toISOString() });
  expect(pastUnpublish.status).toBe(200);
  expect(pastUnpublish.body.state).toBe('UNPUBLISHED');
  expect((await request(node.url, schedulePath(ws, b.id), { token: ws.token })).body.items).toEqual([]);

  for (const at of ['tomorrow', '2030-01-01', '2030-01-01T10:00:00', 1893456000000, null]) {
    expectIssue(await change(ws, b.id, 'publish', { at }), 'at');
    expectIssue(await change(ws, b.id, 'unpublish', { at }), 'at');
  }
  expect((await admin.call(`/posts/${b.id}`)).state).toBe('UNPUBLISHED');
  expect((await request(node.url, schedulePath(ws, b.id), { token: ws.token })).body.items).toEqual([]);
});

test('unknown post and another tenant\'s post are 404; agents may list but not schedule or cancel (403)', async () => {
  const { ws, admin } = await hooked();
  const other = await createWorkspace(node.url);
  const post = await admin.createPost({ slug: 'mine', title: 'Mine' });
  const scheduled = (await change(ws, post.id, 'publish', { at: inMs(3_600_000) })).body;
  const unknown = '0123456789abcdef01234567';
  for (const [wid, pid] of [[ws.id, unknown], [other.id, post.id]]) {
    const base = `/admin/workspaces/${wid}/posts/${pid}`;
    const tries = [
      await request(node.url, `${base}/publish`, { method: 'POST', token: ws.token, body: { at: inMs(60_000) } }),
      await request(node.url, `${base}/unpublish`, { method: 'POST', token: ws.token, body: { at: inMs(60_000) } }),
      await request(node.url, `${base}/schedule`, { token: ws.token }),
      await request(node.url, `${base}/schedule`, { method: 'DELETE', token: ws.token }),
      await request(node.url, `${base}/schedule/${scheduled.id}`, { method: 'DELETE', token: ws.token }),
    ];
    expect(tries.map((res) => [res.status, res.body.code])).toEqual(Array(5).fill([404, 'post_not_found']));
  }

  const email = `agent-${ws.id}@test.local`;
  const user = await request(node.url, '/admin/users', { token: ws.token, body: { email, name: 'Agent', password: 'agent-password' } });
  await request(node.url, `/admin/workspaces/${ws.id}/members`, { token: ws.token, body: { userId: user.body.id ?? user.body.user?.id, role: 'agent' } });
  const agent = (await request(node.url, '/admin/auth/login', { body: { email, password: 'agent-password' } })).body.token;
  expect((await change(ws, post.id, 'publish', { at: inMs(60_000) }, agent)).status).toBe(403);
  expect((await change(ws, post.id, 'unpublish', { at: inMs(60_000) }, agent)).status).toBe(403);
  expect((await request(node.url, schedulePath(ws, post.id), { method: 'DELETE', token: agent })).status).toBe(403);
  expect((await request(node.url, `${schedulePath(ws, post.id)}/${scheduled.id}`, { method: 'DELETE', token: agent })).status).toBe(403);
  const listed = await request(node.url, schedulePath(ws, post.id), { token: agent });
  expect(listed.status).toBe(200);
  expect(listed.body.items).toEqual([scheduled]);
});

test('a post deleted before its time: the job ends quietly and leaves nothing behind', async () => {
  const { ws, admin, events } = await hooked();
  const post = await admin.createPost({ slug: 'gone', title: 'Gone' });
  const scheduled = (await change(ws, post.id, 'publish', { at: inMs(800) })).body;
  await admin.remove(post.id);
  await eventually(async () => (await postScheduleStore(node.deps.db).byId(ws.id, scheduled.id)) === null && (await jobsOf(scheduled.id)) === 0, 10_000, 100);
  expect(events('post.published', post.id)).toHaveLength(0);
  expect((await publicPost(ws, 'gone')).status).toBe(404);
}, 15_000);

test('a run retried after a crash that came after the publish emits no second event and then leaves', async () => {
  const { ws, admin } = await hooked();
  const post = await admin.createPost({ slug: 'retry', title: 'Retry' });
  const workspace = (await findWorkspace(node.deps, ws.id))!;
  // An entry as a scheduled publish leaves it; no job is enqueued, the runs below are called directly.
  const entry = await postScheduleStore(node.deps.db).add(ws.id, post.id, 'publish', new Date(Date.now() + 3_600_000), new Date());
  const seen: DomainEvent[] = [];
  const unsubscribe = node.deps.events.subscribe(async (event) => {
    if ('postId' in event && event.postId === post.id) seen.push(event);
  });
  try {
    // The first run published, then its worker died before removing the entry.
    await publishPost(node.deps, workspace, post.id);
    expect(seen.map((event) => event.event)).toEqual(['post.published']);
    await runScheduledChange(node.deps, { scheduleId: entry.id, workspaceId: ws.id });
    await runScheduledChange(node.deps, { scheduleId: entry.id, workspaceId: ws.id });
    expect(seen.map((event) => event.event)).toEqual(['post.published']);
    expect(await postScheduleStore(node.deps.db).byId(ws.id, entry.id)).toBeNull();
    expect((await admin.call(`/posts/${post.id}`)).state).toBe('PUBLISHED');
  } finally {
    unsubscribe();
  }
});

test('an entry left without its job (a node died between the two writes) gets it at worker start and runs', async () => {
  const { ws, admin, events } = await hooked();
  const post = await admin.createPost({ slug: 'orphan', title: 'Orphan' });
  const entry = await postScheduleStore(node.deps.db).add(ws.id, post.id, 'publish', new Date(Date.now() + 500), new Date());
  expect(await jobsOf(entry.id)).toBe(0);
  await recoverSchedules(node.deps);
  await recoverSchedules(node.deps);
  expect(await jobsOf(entry.id)).toBe(1);
  await eventually(async () => (await publicPost(ws, 'orphan')).status === 200, 10_000, 100);
  await eventually(() => events('post.published', post.id).length === 1, 5_000, 50);
  // The entry goes once the publish is done (the job removes it after the change).
  await eventually(async () => (await postScheduleStore(node.deps.db).byId(ws.id, entry.id)) === null, 5_000, 50);
}, 15_000);

test('a worker killed before the time: the next worker publishes it exactly once', async () => {
  const dbName = uniqueDbName('sched');
  const first = await startTestNode({ dbName });
  nodes.push(first);
  const { ws, admin, events } = await hooked(first.url);
  const post = await admin.createPost({ slug: 'survivor', title: 'Survivor' });
  const res = await change(ws, post.id, 'publish', { at: inMs(2500) }, ws.token, first.url);
  expect(res.status).toBe(202);
  // Crash: no more polling, the connection cut, nothing unlocked.
  first.deps.jobs.abandon();
  await first.deps.db.close(true);

  const second = await startTestNode({ dbName, env: { NODE_ROLE: 'worker' } });
  nodes.push(second);
  await eventually(async () => (await second.deps.db.collection('posts').countDocuments({ state: 'PUBLISHED' })) === 1, 15_000, 100);
  await eventually(() => events('post.published', post.id).length === 1, 10_000, 50);
  await sleep(1500);
  expect(events('post.published', post.id)).toHaveLength(1);
  expect(await second.deps.db.collection('post_schedules').countDocuments({})).toBe(0);
}, 40_000);
