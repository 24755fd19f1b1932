import { Schema, type Collection, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError } from './mongo.js';
import { claimAll, wasClaimed } from './once.js';

/**
 * Newest-first lists that read a few small groups of documents instead of every match.
 *
 * Why: FerretDB 1.x hands only equality filters to its database and sorts, skips and limits in its own
 * process, so the first page of a newest-first list read and decoded every matching document (5,000 posts:
 * 1.5 s for a page of 25). So a document of such a list carries a bucket: a number taken from a sequence of
 * its workspace when it is created (or, for a list in order of activity, each time it becomes active),
 * divided by BUCKET_SIZE. Every document of a bucket is newer than every document of a lower bucket, so a
 * page is read bucket by bucket from the newest, each read an equality filter that matches only that
 * bucket's documents. MongoDB answers each from an index; FerretDB on PostgreSQL from what matches alone.
 * (FerretDB on SQLite hands SQLite nothing but `{_id}` filters: there each bucket read still decodes the whole
 * collection, so a first page costs about two such reads instead of one; big lists need PostgreSQL.)
 *
 * A list's order is therefore (bucket desc, then its own order): the list's own order except among items
 * that became new at the same moment on different nodes, at a bucket's edge. Documents stored before their
 * list had buckets are all filed in one bucket below the others, OLDER_BUCKET, when a node starts
 * (`fileOlderDocuments`): older than every new one, in the list's own order among themselves.
 */
export const BUCKET_SIZE = 64;
export const OLDER_BUCKET = -1;

/**
 * Buckets read before giving up on the walk: a filter that few documents match (open conversations among
 * thousands of closed ones) finds little per bucket, and reading the list whole with that filter is then
 * the cheaper way, because only its matches are read.
 */
const MAX_BUCKETS_WALKED = 6;

/** The bucket of a number taken from a sequence (numbers start at 1). */
export function bucketOf(taken: number): number {
  return Math.max(0, Math.floor((taken - 1) / BUCKET_SIZE));
}

/**
 * Files a collection's documents that have no bucket yet in OLDER_BUCKET (an upgrade: it reads the whole
 * collection on FerretDB, so it runs through `upgradeOnce`); the number filed.
 */
export async function fileOlderDocuments(collection: Collection, field: string): Promise<number> {
  return (await collection.updateMany({ [field]: { $exists: false } }, { $set: { [field]: OLDER_BUCKET } })).modifiedCount;
}

interface SequenceDoc {
  _id: string;
  value: number;
}

const Sequences = defineModel('Sequence', new Schema<SequenceDoc>({ _id: { type: String, required: true }, value: { type: Number, required: true } }, { collection: 'sequences', versionKey: false }));

/** A take waiting for its numbers: how many, and where to answer the last. */
interface WaitingTake {
  count: number;
  resolve: (last: number) => void;
  reject: (error: unknown) => void;
}

/**
 * What a node keeps of its sequences: the takes waiting on each key (present while one increment of it is
 * under way), the buckets it saw claimed, and the top bucket it last found of each list.
 */
interface SequenceMemory {
  waiting: Map<string, WaitingTake[]>;
  claimed: Set<string>;
  tops: Map<string, number>;
}
// Per database handle, as its document locks are; bounded like the other per-key memories.
const memories = new WeakMap<Connection, SequenceMemory>();
const REMEMBERED_BUCKETS_MAX = 10_000;

function memoryOf(db: Connection): SequenceMemory {
  let memory = memories.get(db);
  if (!memory) memories.set(db, (memory = { waiting: new Map(), claimed: new Set(), tops: new Map() }));
  return memory;
}

/**
 * Per-workspace counters, one document each, keyed `<workspaceId>:<list>`, and the claims of the buckets
 * their numbers fell in.
 *
 * On FerretDB an increment is a read and a write, and racing increments overwrite each other: 100 at once
 * on one counter gave 3 distinct numbers, the counter fell back below numbers it had given (30 at once: the
 * highest given 14, the counter left at 4), and at times they never all returned. So a node sends at most
 * one increment of a counter at a time, for every take that waits meanwhile (a burst costs two, not one each).
 * Nodes still race each other: a taker claims each bucket its numbers fall in (a unique `_id`, decided alike
 * on every engine; once per bucket and node) before it answers, and a list's top bucket is found by climbing
 * the claims from the counter's, so an item is never above the bucket its list is read from.
 */
export function sequenceStore(db: Connection) {
  const model = Sequences(db);
  const memory = memoryOf(db);
  const claimOf = (key: string, bucket: number) => `bucket:${key}#${bucket}`;
  const claimBuckets = async (key: string, first: number, last: number) => {
    const unclaimed: string[] = [];
    for (let bucket = bucketOf(first); bucket <= bucketOf(last); bucket += 1) {
      if (!memory.claimed.has(claimOf(key, bucket))) unclaimed.push(claimOf(key, bucket));
    }
    await claimAll(db, unclaimed);
    // Forgetting costs one more read (a claim made again, a top found again from the counter), never a wrong answer.
    if (memory.claimed.size + unclaimed.length > REMEMBERED_BUCKETS_MAX) memory.claimed.clear();
    for (const claim of unclaimed) memory.claimed.add(claim);
  };
  const increment = async (key: string, count: number): Promise<number> => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        const doc = await model.findOneAndUpdate({ _id: key }, { $inc: { value: count } }, { upsert: true, returnDocument: 'after' }).lean<SequenceDoc>();
        await claimBuckets(key, doc.value - count + 1, doc.value);
        return doc.value;
      } catch (error) {
        // Two first takers (on two nodes) both tried to create the counter: the loser increments the winner's.
        if (!isDuplicateKeyError(error) || attempt > 0) throw error;
      }
    }
  };
  /** Increments the key for every take waiting on it, one increment at a time, until none waits. */
  const serve = async (key: string, waiting: WaitingTake[]) => {
    while (waiting.length > 0) {
      const takes = waiting.splice(0);
      const total = takes.reduce((sum, each) => sum + each.count, 0);
      try {
        let last = (await increment(key, total)) - total;
        for (const each of takes) each.resolve((last += each.count));
      } catch (error) {
        for (const each of takes) each.reject(error);
      }
    }
    memory.waiting.delete(key);
  };
  const current = async (key: string) => (await model.findById(key).lean<SequenceDoc>())?.value ?? 0;
  return {
    /**
     * Takes `count` numbers and answers the last one, its buckets claimed. Takers on two nodes at once may be
     * given the same numbers, and the counter may fall back (see above): buckets need only the claims.
     */
    take(key: string, count = 1): Promise<number> {
      return new Promise((resolve, reject) => {
        const waiting = memory.waiting.get(key);
        if (waiting) return void waiting.push({ count, resolve, reject });
        const started = [{ count, resolve, reject }];
        memory.waiting.set(key, started);
        void serve(key, started);
      });
    },
    /**
     * The highest bucket any number of the list was taken in (OLDER_BUCKET when none): from the one this node
     * found last (at first, the counter's), up the claims above it. One read of a claim by `_id` when
     * nothing is newer.
     */
    async topBucket(key: string): Promise<number> {
      let top = memory.tops.get(key);
      if (top === undefined) {
        const taken = await current(key);
        top = taken > 0 ? bucketOf(taken) : OLDER_BUCKET;
      }
      while (await wasClaimed(db, claimOf(key, top + 1))) top += 1;
      if (memory.tops.size >= REMEMBERED_BUCKETS_MAX) memory.tops.clear();
      memory.tops.set(key, top);
      return top;
    },
  };
}

export interface BucketWalk<T> {
  /** The list's top bucket (`topBucket`). */
  top: number;
  /** How many items from the top of the list the page needs (its offset, its size, one more for `hasNext`). */
  wanted: number;
  /** The matching items of one bucket, in the list's own order. */
  read(bucket: number): Promise<T[]>;
}

/**
 * The first `wanted` items of the list (all of it when shorter), or null when they are not within its
 * newest MAX_BUCKETS_WALKED buckets (a deep page, a selective filter): the caller then reads the list with
 * one query in the same order.
 */
export async function walkNewestFirst<T>(walk: BucketWalk<T>): Promise<T[] | null> {
  if (walk.wanted > MAX_BUCKETS_WALKED * BUCKET_SIZE) return null;
  const found: T[] = [];
  let bucket = walk.top;
  let walked = 0;
  while (bucket >= OLDER_BUCKET && found.length < walk.wanted) {
    if (walked >= MAX_BUCKETS_WALKED) return null;
    // The newest bucket is seldom full: it is read together with the one below.
    const batch = walked === 0 && bucket > OLDER_BUCKET ? [bucket, bucket - 1] : [bucket];
    for (const items of await Promise.all(batch.map((each) => walk.read(each)))) found.push(...items);
    bucket -= batch.length;
    walked += batch.length;
  }
  return found.slice(0, walk.wanted);
}
