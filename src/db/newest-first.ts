import { Schema, type Collection, type Connection } from 'mongoose';
import { defineModel, isDuplicateKeyError } from './mongo.js';

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

/** Per-workspace counters, one document each, keyed `<workspaceId>:<list>`. */
export function sequenceStore(db: Connection) {
  const model = Sequences(db);
  return {
    /**
     * Takes `count` numbers and answers the last one. Racing takers on FerretDB (whose increment is a read
     * and a write) may be given the same number: buckets only need the numbers never to go back.
     */
    async take(key: string, count = 1): Promise<number> {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const doc = await model.findOneAndUpdate({ _id: key }, { $inc: { value: count } }, { upsert: true, returnDocument: 'after' }).lean<SequenceDoc>();
          return doc.value;
        } catch (error) {
          // Two first takers both tried to create the counter: the loser increments the winner's.
          if (!isDuplicateKeyError(error) || attempt > 0) throw error;
        }
      }
    },
    /** The last number taken (0 when none). */
    async current(key: string): Promise<number> {
      return (await model.findById(key).lean<SequenceDoc>())?.value ?? 0;
    },
  };
}

export interface BucketWalk<T> {
  /** The last number taken from the list's sequence. */
  taken: number;
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
  let bucket = walk.taken > 0 ? bucketOf(walk.taken) : OLDER_BUCKET;
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
