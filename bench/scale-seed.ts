/**
 * The seeding of `npm run bench:scale`: one workspace's history, inserted in bulk straight into the
 * collections in the shape their stores write (posts through `postStore.importPublished`, as a migration
 * would; the rest with `insertMany` of model-shaped documents, as bench/unread.bench.ts does), 1,000 a batch.
 *
 * - posts: published blog posts in `en`, newest first one minute apart; every 1,000th title says "rhubarb"
 *   (what the `q` search looks for);
 * - appointments: two years of requests, most answered (confirmed, declined, cancelled), the newest 1 %
 *   pending; confirmed ones of the coming 30 days take at most every other slot, so availability has work
 *   and free slots;
 * - conversations and their messages (messages / conversations each, alternating visitor and agent), the
 *   newest 200 open with their last visitor message unread, the rest closed and read;
 * - webhook deliveries: delivered, one attempt each, to the workspace's endpoint, numbered in its log
 *   (`src/webhooks/delivery-log.model.ts`) as the store numbers them.
 *
 * Also runnable alone against a node's database:
 * `MONGODB_URI=... MONGODB_DB=... BENCH_WORKSPACE=<id> BENCH_POST_TYPE=<id> tsx bench/scale-seed.ts`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { createConnection, Types, type Connection } from 'mongoose';
import type { Document } from 'mongodb';
import { postStore } from '../src/posts/posts.model.js';
import { scheduleKeys } from '../src/appointments/schedule-keys.js';
import { appointmentListSequence } from '../src/appointments/appointments.model.js';
import { activitySequence } from '../src/livechat/conversations.model.js';
import { bucketOf } from '../src/db/newest-first.js';
import { searchGramsOf } from '../src/shared/search-grams.js';
import { blockOf } from '../src/webhooks/delivery-log.model.js';
import { publishedForImport } from '../test/support/imported-posts.js';

export interface ScaleCounts {
  posts: number;
  appointments: number;
  conversations: number;
  messages: number;
  deliveries: number;
}

export function countsFromEnv(scale = Number(process.env.BENCH_SCALE ?? 1)): ScaleCounts {
  const count = (name: string, full: number) => Math.max(1, Math.round(Number(process.env[name] ?? full * scale)));
  return {
    posts: count('BENCH_POSTS', 100_000),
    appointments: count('BENCH_APPOINTMENTS', 50_000),
    conversations: count('BENCH_CONVERSATIONS', 100_000),
    messages: count('BENCH_MESSAGES', 1_000_000),
    deliveries: count('BENCH_DELIVERIES', 500_000),
  };
}

const BATCH = 1_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

async function inBatches(total: number, make: (index: number) => Document, insert: (docs: Document[]) => Promise<unknown>): Promise<void> {
  for (let from = 0; from < total; from += BATCH) {
    const docs: Document[] = [];
    for (let i = from; i < Math.min(total, from + BATCH); i += 1) docs.push(make(i));
    await insert(docs);
  }
}

const markdown = (i: number) => `## Day ${i}\n\nWhat came out of the oven today: bread number ${i}, with a crust.\n\n- flour\n- water\n- time`;

async function seedPosts(db: Connection, workspaceId: string, postTypeId: string, total: number, now: number): Promise<void> {
  const store = postStore(db);
  for (let from = 0; from < total; from += BATCH) {
    const rows = [];
    for (let i = from; i < Math.min(total, from + BATCH); i += 1) {
      const title = i % 1000 === 7 ? `Rhubarb tart number ${i}` : `Bread number ${i}`;
      rows.push(publishedForImport({ postTypeId, locale: 'en', slug: `post-${i}`, title, metaDescription: `What we baked on day ${i}`, markdown: markdown(i), publishedAt: new Date(now - i * MINUTE) }));
    }
    await store.importPublished(workspaceId, rows);
  }
}

/** The start of the business-hours slot `slot` (09:00-17:00 UTC, hourly) counted from tomorrow. */
function futureSlot(slot: number, now: number): Date {
  const tomorrow = Math.floor(now / DAY) * DAY + DAY;
  return new Date(tomorrow + Math.floor(slot / 8) * DAY + (9 + (slot % 8)) * HOUR);
}

function appointment(workspaceId: Types.ObjectId, i: number, total: number, now: number): Document {
  const age = total - 1 - i;
  const createdAt = new Date(now - age * ((2 * 365 * DAY) / total) - HOUR);
  // The newest 1 % pending; of the rest, 70 % confirmed, 20 % declined, 10 % cancelled.
  const pending = age < total / 100;
  const status = pending ? 'PENDING' : i % 10 < 7 ? 'CONFIRMED' : i % 10 < 9 ? 'REJECTED' : 'CANCELLED';
  // Confirmed ones among the newest 120 answered fill every other slot of the next 30 days; the rest lie in the past.
  const answeredRank = age - Math.ceil(total / 100);
  const upcoming = answeredRank >= 0 && answeredRank < 120 && status === 'CONFIRMED';
  const scheduledAt = status === 'PENDING' ? null : upcoming ? futureSlot(2 * answeredRank, now) : new Date(createdAt.getTime() + 3 * DAY);
  const requestedAt = scheduledAt ?? futureSlot(age % 200, now);
  return {
    _id: new Types.ObjectId(),
    workspaceId,
    status,
    requestedAt,
    scheduledAt,
    scheduledEnd: scheduledAt && new Date(scheduledAt.getTime() + HOUR),
    // As `appointmentStore` files them.
    ...(scheduledAt ? scheduleKeys(scheduledAt) : { scheduledDay: null, scheduledMonth: null }),
    // Numbered in the order requested, as the store numbers them (the counter is set after them).
    listBucket: bucketOf(i + 1),
    durationMinutes: 60,
    timezone: 'UTC',
    visitorName: `Visitor ${i}`,
    visitorEmail: `visitor${i % 5000}@example.com`,
    visitorEmailKey: `visitor${i % 5000}@example.com`,
    searchGrams: searchGramsOf(`Visitor ${i}`, `visitor${i % 5000}@example.com`),
    visitorPhone: null,
    visitorMessage: 'A table for two, please.',
    visitorSessionId: `session-${i}`,
    externalId: null,
    identityVerified: false,
    visitorAttributesJson: null,
    declineReason: status === 'REJECTED' ? 'Fully booked.' : null,
    rescheduleCount: 0,
    respondedAt: status === 'PENDING' ? null : new Date(createdAt.getTime() + HOUR),
    cancelledAt: status === 'CANCELLED' ? new Date(createdAt.getTime() + 2 * HOUR) : null,
    cancellationTokenHash: status === 'PENDING' ? createHash('sha256').update(`cancel-${i}-${randomBytes(4).toString('hex')}`).digest('hex') : null,
    consumedTokenHash: null,
    manageTokenHash: status === 'CONFIRMED' ? createHash('sha256').update(`manage-${i}-${randomBytes(4).toString('hex')}`).digest('hex') : null,
    cancelReason: null,
    locale: 'en',
    createdAt,
    __v: 0,
  };
}

async function seedChats(db: Connection, workspaceId: Types.ObjectId, conversations: number, messages: number, now: number): Promise<void> {
  const each = Math.max(1, Math.round(messages / conversations));
  const open = Math.min(200, conversations);
  const span = 365 * DAY;
  for (let from = 0; from < conversations; from += BATCH) {
    const chats: Document[] = [];
    const lines: Document[] = [];
    for (let c = from; c < Math.min(conversations, from + BATCH); c += 1) {
      const age = conversations - 1 - c;
      const isOpen = age < open;
      const started = now - age * (span / conversations) - each * MINUTE;
      const _id = new Types.ObjectId();
      let last: Document | null = null;
      // Visitor messages up to each message (the store keeps it with the conversation and the team's read cursor).
      let visitorCount = 0;
      let readVisitorCount = 0;
      let lastRead: Document | null = null;
      for (let seq = 1; seq <= each; seq += 1) {
        const sender = seq % 2 === 1 || (isOpen && seq === each) ? 'VISITOR' : 'AGENT';
        if (sender === 'VISITOR') visitorCount += 1;
        const unread = isOpen && seq === each;
        const createdAt = new Date(started + seq * MINUTE);
        last = { _id: new Types.ObjectId(), workspaceId, conversationId: _id, seq, sender, body: `Message ${seq} of chat ${c}: is the shop open on Sunday?`, authorUserId: null, createdAt, readAt: unread ? null : createdAt, unread, __v: 0 };
        lines.push(last);
        if (!unread) [readVisitorCount, lastRead] = [visitorCount, last];
      }
      const lastAt = (last!.createdAt as Date).getTime();
      chats.push({
        _id,
        workspaceId,
        tokenHash: createHash('sha256').update(`${_id.toHexString()}-${randomBytes(4).toString('hex')}`).digest('hex'),
        sealedToken: 'sealed-by-the-bench',
        status: isOpen ? 'OPEN' : 'CLOSED',
        visitorSessionId: `session-${c}`,
        pageUrl: 'https://shop.example/contact',
        referrer: null,
        locale: 'en',
        externalId: null,
        identityVerified: false,
        visitorName: `Visitor ${c}`,
        visitorEmail: `visitor${c % 5000}@example.com`,
        visitorEmailKey: `visitor${c % 5000}@example.com`,
        searchGrams: searchGramsOf(`Visitor ${c}`, `visitor${c % 5000}@example.com`),
        attributesJson: null,
        lastMessage: { id: (last!._id as Types.ObjectId).toHexString(), sender: last!.sender, body: last!.body, createdAt: last!.createdAt },
        lastMessageAtMs: lastAt,
        lastSeq: each,
        lastVisitorCount: visitorCount,
        lastActivityAt: new Date(lastAt),
        // In the order of their last activity, as the store numbers them (the counter is set after them).
        activityBucket: bucketOf(c + 1),
        closedAt: isOpen ? null : new Date(lastAt + HOUR),
        createdAt: new Date(started),
        assigneeUserId: null,
        readByVisitor: null,
        readByTeam: lastRead && { messageId: (lastRead._id as Types.ObjectId).toHexString(), createdAt: lastRead.createdAt, visitorCount: readVisitorCount },
        visitorMailedUpToMs: 0,
        visitorMailedAt: null,
        __v: 0,
      });
      if (lines.length >= BATCH) await db.collection('livechat_messages').insertMany(lines.splice(0), { ordered: false });
    }
    await db.collection('livechat_conversations').insertMany(chats, { ordered: false });
    if (lines.length) await db.collection('livechat_messages').insertMany(lines, { ordered: false });
  }
}

function delivery(workspaceId: Types.ObjectId, endpointUrl: string, i: number, total: number, now: number): Document {
  // Ten seconds apart, closer for a long history: all within the 30 days deliveries are kept by default.
  const at = new Date(now - (total - i) * Math.min(10_000, (25 * DAY) / total));
  const postId = new Types.ObjectId().toHexString();
  return {
    _id: Types.ObjectId.createFromTime(Math.floor(at.getTime() / 1000)),
    workspaceId,
    event: 'post.published',
    webhookId: `evt_${randomBytes(8).toString('hex')}`,
    payloadJson: JSON.stringify({ event: 'post.published', workspaceId: workspaceId.toHexString(), postId, slug: `post-${i}`, title: `Bread number ${i}`, publishedAt: at.toISOString() }),
    url: endpointUrl,
    sealedUrl: null,
    state: 'delivered',
    attempts: [{ number: 1, at, statusCode: 200, durationMs: 12, error: null, outcome: 'delivered' }],
    nextAttemptAt: null,
    finalReason: null,
    redeliveryOf: null,
    endpointId: null,
    logSeq: i + 1,
    logBlock: blockOf(i + 1),
    createdAt: at,
    updatedAt: at,
    __v: 0,
  };
}

/** Seeds one workspace; answers the seconds each part took. */
export async function seedScale(options: { uri: string; dbName: string; workspaceId: string; postTypeId: string; endpointUrl: string; counts: ScaleCounts; log?: (line: string) => void }): Promise<Record<string, number>> {
  const { counts } = options;
  const db = await createConnection(options.uri, { dbName: options.dbName }).asPromise();
  const workspaceId = new Types.ObjectId(options.workspaceId);
  const now = Date.now();
  const seconds: Record<string, number> = {};
  const timed = async (name: string, work: () => Promise<void>) => {
    const started = performance.now();
    await work();
    seconds[name] = Number(((performance.now() - started) / 1000).toFixed(1));
    options.log?.(`  seeded ${name} in ${seconds[name]} s`);
  };
  try {
    await timed('posts', () => seedPosts(db, options.workspaceId, options.postTypeId, counts.posts, now));
    await timed('appointments', async () => {
      await inBatches(counts.appointments, (i) => appointment(workspaceId, i, counts.appointments, now), (docs) => db.collection('appointments').insertMany(docs, { ordered: false }));
      await db.collection<{ _id: string; value: number }>('sequences').updateOne({ _id: appointmentListSequence(options.workspaceId) }, { $inc: { value: counts.appointments } }, { upsert: true });
    });
    await timed('chats', async () => {
      await seedChats(db, workspaceId, counts.conversations, counts.messages, now);
      await db.collection<{ _id: string; value: number }>('sequences').updateOne({ _id: activitySequence(options.workspaceId) }, { $inc: { value: counts.conversations } }, { upsert: true });
    });
    await timed('deliveries', async () => {
      await inBatches(counts.deliveries, (i) => delivery(workspaceId, options.endpointUrl, i, counts.deliveries, now), (docs) => db.collection('webhook_deliveries').insertMany(docs, { ordered: false }));
      // The workspace's log counter, as the store keeps it: the records above took its first numbers.
      await db.collection<{ _id: string; taken: number }>('webhook_delivery_counters').updateOne({ _id: options.workspaceId }, { $inc: { taken: counts.deliveries } }, { upsert: true });
    });
  } finally {
    await db.close();
  }
  return seconds;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const uri = process.env.MONGODB_URI;
  const workspaceId = process.env.BENCH_WORKSPACE;
  const postTypeId = process.env.BENCH_POST_TYPE;
  if (!uri || !workspaceId || !postTypeId) throw new Error('set MONGODB_URI, BENCH_WORKSPACE and BENCH_POST_TYPE (and MONGODB_DB)');
  const counts = countsFromEnv();
  console.log(`seeding ${JSON.stringify(counts)} into workspace ${workspaceId}`);
  await seedScale({ uri, dbName: process.env.MONGODB_DB ?? 'hearth', workspaceId, postTypeId, endpointUrl: process.env.BENCH_ENDPOINT_URL ?? 'https://hooks.example/hearth', counts, log: console.log });
}
