/**
 * `npm run bench:unread`: what the inbox's unread counts and the away digest cost as a workspace's chat
 * history grows, by how they select unread messages: `readAt: null` (before) and the `unread` flag (now).
 *
 * - The engine alone (no node): BENCH_CONVERSATIONS (10,000) conversations of one workspace, BENCH_MESSAGES_EACH
 *   (10) messages each (half from the visitor), inserted in bulk in the shape the messages store writes;
 *   the newest BENCH_UNREAD (100) conversations have one unread visitor message, the rest were read.
 * - Each query as the store runs it (the unread counts of an inbox page of 100 conversations; the digest's
 *   newest 20 unread visitor messages), both ways, taking turns for BENCH_ROUNDS (5) rounds; median ms.
 * Last line: the JSON figures, with the ratios now/before.
 */
import { MongoClient, ObjectId, type Document } from 'mongodb';
import { benchEngine } from './support/environment.js';
import { now, percentile, report, round, runBench } from './support/children.js';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 10_000);
const EACH = Number(process.env.BENCH_MESSAGES_EACH ?? 10);
const UNREAD = Number(process.env.BENCH_UNREAD ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

await runBench(async (cleanup) => {
  const engine = await benchEngine('unread', cleanup);
  const client = await MongoClient.connect(engine.uri);
  cleanup(() => client.close());
  const messages = client.db(engine.dbName).collection('livechat_messages');
  const workspaceId = new ObjectId();
  const conversations = Array.from({ length: CONVERSATIONS }, () => new ObjectId());
  const start = Date.now() - CONVERSATIONS * EACH * 1000;
  const seedStarted = now();
  for (let c = 0; c < CONVERSATIONS; c += 200) {
    const docs: Document[] = [];
    for (let i = c; i < Math.min(CONVERSATIONS, c + 200); i += 1) {
      for (let seq = 1; seq <= EACH; seq += 1) {
        const sender = seq % 2 === 1 ? 'VISITOR' : 'AGENT';
        const read = !(i >= CONVERSATIONS - UNREAD && seq === EACH - 1);
        const createdAt = new Date(start + (i * EACH + seq) * 1000);
        docs.push({ workspaceId, conversationId: conversations[i], seq, sender, body: `Message ${seq} of chat ${i}`, authorUserId: null, createdAt, readAt: read ? createdAt : null, unread: !read });
      }
    }
    await messages.insertMany(docs, { ordered: false });
  }
  const seeded = (now() - seedStarted) / 1000;
  const page = conversations.slice(-100);

  const counts = {
    before: () => messages.aggregate([{ $match: { workspaceId, conversationId: { $in: page }, sender: 'VISITOR', readAt: null } }, { $group: { _id: '$conversationId', n: { $sum: 1 } } }]).toArray(),
    now: () => messages.aggregate([{ $match: { workspaceId, sender: 'VISITOR', unread: true, conversationId: { $in: page } } }, { $group: { _id: '$conversationId', n: { $sum: 1 } } }]).toArray(),
  };
  const after = new Date(start);
  const digest = {
    before: () => messages.find({ workspaceId, sender: 'VISITOR', readAt: null, createdAt: { $gt: after } }).sort({ createdAt: -1 }).limit(20).toArray(),
    now: () => messages.find({ workspaceId, sender: 'VISITOR', unread: true, createdAt: { $gt: after } }).sort({ createdAt: -1 }).limit(20).toArray(),
  };
  const timings: Record<string, number[]> = { counts_before: [], counts_now: [], digest_before: [], digest_now: [] };
  const time = async (name: string, run: () => Promise<Document[]>, expected: number) => {
    const from = now();
    const rows = await run();
    timings[name].push(now() - from);
    if (rows.length !== expected) throw new Error(`${name}: ${rows.length} rows, expected ${expected}`);
  };
  for (let round_ = 0; round_ <= ROUNDS; round_ += 1) {
    await time('counts_before', counts.before, UNREAD);
    await time('counts_now', counts.now, UNREAD);
    await time('digest_before', digest.before, Math.min(20, UNREAD));
    await time('digest_now', digest.now, Math.min(20, UNREAD));
  }
  // The first round warms up.
  const median = (name: string) => percentile(timings[name].slice(1).sort((a, b) => a - b), 50);
  const figures = Object.fromEntries(Object.keys(timings).map((name) => [`${name}_ms`, round(median(name))]));
  report(
    [
      `bench:unread: ${CONVERSATIONS} conversations, ${CONVERSATIONS * EACH} messages (${UNREAD} unread), seeded in ${round(seeded)} s (${engine.kind})`,
      `  unread counts of an inbox page: before ${figures.counts_before_ms} ms, now ${figures.counts_now_ms} ms`,
      `  away digest: before ${figures.digest_before_ms} ms, now ${figures.digest_now_ms} ms`,
    ],
    {
      bench: 'unread',
      conversations: CONVERSATIONS,
      messages: CONVERSATIONS * EACH,
      unread: UNREAD,
      ...figures,
      counts_ratio: round(median('counts_now') / median('counts_before'), 3),
      digest_ratio: round(median('digest_now') / median('digest_before'), 3),
      engine: engine.kind,
    },
  );
});
